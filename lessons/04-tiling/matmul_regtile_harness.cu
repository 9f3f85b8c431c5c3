// Harness of task matmul_regtile: the cases. Built twice: with
// exercises/04-tiling/matmul_regtile.cu and with the solution. Inputs, poisoning and the check
// live in common/gemm_task.cu.
#include "lab.h"
#include "matmul_regtile.h"

// dim[] = M, N, K. A 128×128 block tile with 8×8 per thread meets every kind of edge here:
// fewer rows or columns than one thread's tile, odd K and N (unaligned rows), K below the
// k-tile, one block tile plus one element, and the timed square.
static const lab_case cases[] = {
    {"1x1x1", {1, 1, 1, 0}, 0},
    {"37x45x53", {37, 45, 53, 0}, LAB_CASE_SMALL},
    {"2x3000x5", {2, 3000, 5, 0}, 0},
    {"3000x3x7", {3000, 3, 7, 0}, 0},
    {"129x257x9", {129, 257, 9, 0}, 0},
    {"128x128x128", {128, 128, 128, 0}, 0},
    {"255x129x333", {255, 129, 333, 0}, 0},
    {"1000x1x1000", {1000, 1, 1000, 0}, 0},
    {"1023x517x2049", {1023, 517, 2049, 0}, 0},
    {"2048x2048x2048", {2048, 2048, 2048, 0}, 0},
    // The speed case scaled for compute-sanitizer: M and N multiples of the 128 x 128 block
    // tile and K of the k-tile, as 4096 is, so it takes the same no-edge-tests path (the
    // solution's EDGES = false kernel) that only whole tiles take; 4 x 4 block tiles.
    {"512x512x512", {512, 512, 512, 0}, LAB_CASE_SANITIZE},
    {"4096x4096x4096", {4096, 4096, 4096, 0}, LAB_CASE_SPEED},
};

int main(int argc, char **argv)
{
    const lab_gemm_task task = {
        .name = "matmul_regtile",
        .cases = cases,
        .n_cases = sizeof cases / sizeof *cases,
        .device_fn = matmul_regtile,
        .reference = LAB_REFERENCE(lab_gemm_ref_f32),
    };
    return lab_gemm_task_main(&task, argc, argv);
}

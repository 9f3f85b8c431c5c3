// Harness of task matmul_tiled: the cases. Built twice: with exercises/04-tiling/matmul_tiled.cu
// and with the solution. Inputs, poisoning and the check live in common/gemm_task.cu.
#include "lab.h"
#include "matmul_tiled.h"

// dim[] = M, N, K. Sizes around the tile (16 or 32) from both sides, primes, one-row and
// one-column products, K smaller than a tile, and the timed square.
static const lab_case cases[] = {
    {"1x1x1", {1, 1, 1, 0}, 0},
    {"37x45x53", {37, 45, 53, 0}, LAB_CASE_SMALL},
    {"17x31x5", {17, 31, 5, 0}, 0},
    {"64x64x64", {64, 64, 64, 0}, 0},
    {"1x1000x7", {1, 1000, 7, 0}, 0},
    {"1000x1x1000", {1000, 1, 1000, 0}, 0},
    {"300x500x3", {300, 500, 3, 0}, 0},
    {"33x65x129", {33, 65, 129, 0}, 0},
    {"127x131x137", {127, 131, 137, 0}, 0},
    {"1023x517x2049", {1023, 517, 2049, 0}, 0},
    // The speed case scaled for compute-sanitizer: square, M, N and K multiples of the tile
    // (32) and of 128 as 4096 is, so no tile is partial and the bounds tests never fail, as
    // in the speed case; 16 x 16 blocks of tiles, a 512th of its work.
    {"512x512x512", {512, 512, 512, 0}, LAB_CASE_SANITIZE},
    {"4096x4096x4096", {4096, 4096, 4096, 0}, LAB_CASE_SPEED},
};

int main(int argc, char **argv)
{
    const lab_gemm_task task = {
        .name = "matmul_tiled",
        .cases = cases,
        .n_cases = sizeof cases / sizeof *cases,
        .device_fn = matmul_tiled,
        .reference = LAB_REFERENCE(lab_gemm_ref_f32),
    };
    return lab_gemm_task_main(&task, argc, argv);
}

// Harness of task matmul_naive: the cases. Built twice: with exercises/03-naive-matmul/
// matmul_naive.cu and with the solution. Inputs, poisoning and the check of C = A·B live in
// common/gemm_task.cu.
#include "lab.h"
#include "matmul_naive.h"

// dim[0..2] = M, N, K; dim[3] = 1 when the case goes through the host wrapper.
static const lab_case cases[] = {
    {"1x1x1", {1, 1, 1, 0}, LAB_CASE_SMALL},
    {"17x31x5", {17, 31, 5, 0}, LAB_CASE_SMALL},
    {"1000x1x1000", {1000, 1, 1000, 0}, 0},
    {"1x1000x7", {1, 1000, 7, 0}, 0},
    {"33x65x129", {33, 65, 129, 0}, 0},
    {"1023x517x2049", {1023, 517, 2049, 0}, 0},
    {"host-129x257x63", {129, 257, 63, 1}, LAB_CASE_READY_ON_RETURN},
    {"host-1x1x1", {1, 1, 1, 1}, LAB_CASE_READY_ON_RETURN},
    // The speed case scaled for compute-sanitizer: square, M, N and K multiples of every
    // block and tile edge (32, 64, 128) as 4096 is, so no block is partial; 512^3 is a 512th
    // of the speed case's work, seconds under memcheck and initcheck.
    {"512x512x512", {512, 512, 512, 0}, LAB_CASE_SANITIZE},
    {"4096x4096x4096", {4096, 4096, 4096, 0}, LAB_CASE_SPEED},
};

int main(int argc, char **argv)
{
    const lab_gemm_task task = {
        .name = "matmul_naive",
        .cases = cases,
        .n_cases = sizeof cases / sizeof *cases,
        .device_fn = matmul_naive,
        .host_fn = matmul_naive_host,
        .reference = LAB_REFERENCE(lab_gemm_ref_f32),
    };
    return lab_gemm_task_main(&task, argc, argv);
}

// The harness shared by this lesson's two tasks: both implement the matmul contract of
// lesson 03 (row-major, A M×K, B K×N, C M×N, FP32, device pointers, any sizes >= 1), so the
// inputs, the poisoning of C and the check are the same; only the function and the cases differ.
#ifndef GEMM_TASK_H
#define GEMM_TASK_H

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*gemm_task_fn)(const float *A, const float *B, float *C, int M, int N, int K);

// A case is {name, {M, N, K, 0}, flags}. Runs lab_task_main with `fn` as the code under test.
int gemm_task_main(const char *name, const lab_case *cases, size_t n_cases, gemm_task_fn fn,
                   int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif

// Task matmul_naive: C = A·B with one thread per element of C.
//
// Contract (what the harness checks, and what your code may rely on):
//   - Row-major storage: A is M×K (A[i*K + k]), B is K×N (B[k*N + j]), C is M×N (C[i*N + j]).
//   - Any sizes M, N, K >= 1 — not only multiples of the block size: 1×1×1, 17×31×5,
//     1000×1×1000 and 1023×517×2049 are among the cases. M*K, K*N and M*N are below 2^31.
//   - Every element of C must be written; C holds garbage (NaN) before the call.
//   - FP32 arithmetic (no TF32, no half precision); the result is compared with a
//     double-precision reference within a tolerance relative to sum_k |A_ik * B_kj|.
//   - No cuBLAS or other library: the grader rejects an exercise that links one.
#ifndef MATMUL_NAIVE_H
#define MATMUL_NAIVE_H

#ifdef __cplusplus
extern "C" {
#endif

// A, B, C are device pointers. Launch on the default stream; returning right after the
// launch is fine (the harness synchronizes). Check the launch (CUDA_LAUNCH_CHECK()).
void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K);

// The same product on host pointers (the classic host function): allocate device memory,
// copy A and B to the device, call matmul_naive, copy C back, free the device memory.
// Returns when C holds the result.
void matmul_naive_host(const float *A, const float *B, float *C, int M, int N, int K);

#ifdef __cplusplus
}
#endif
#endif

// Task matmul_tiled: C = A·B with shared-memory tiles.
//
// Contract (what the harness checks, and what your code may rely on):
//   - Row-major storage: A is M×K (A[i*K + k]), B is K×N (B[k*N + j]), C is M×N (C[i*N + j]).
//   - Any sizes M, N, K >= 1 — not only multiples of the tile: 1×1×1, 37×45×53, 300×500×3 and
//     1023×517×2049 are among the cases, so the boundary tiles (partly outside A, B or C) are
//     the heart of the task. M*K, K*N and M*N are below 2^31.
//   - Every element of C must be written; C holds garbage (NaN) before the call.
//   - Each block stages tiles of A and B in shared memory and multiplies them from there;
//     the small case runs under compute-sanitizer's racecheck and synccheck, so a missing or
//     misplaced __syncthreads() is reported with its line.
//   - FP32 arithmetic (no TF32, no half precision); the result is compared with a
//     double-precision reference within a tolerance relative to sum_k |A_ik * B_kj|.
//   - No cuBLAS or other library: the grader rejects an exercise that links one.
//   - Speed: the 4096×4096×4096 case is timed against the reference solution, a classic
//     32×32 tiled kernel.
#ifndef MATMUL_TILED_H
#define MATMUL_TILED_H

#ifdef __cplusplus
extern "C" {
#endif

// A, B, C are device pointers. Launch on the default stream; returning right after the
// launch is fine (the harness synchronizes). Check the launch (CUDA_LAUNCH_CHECK()).
void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K);

#ifdef __cplusplus
}
#endif
#endif

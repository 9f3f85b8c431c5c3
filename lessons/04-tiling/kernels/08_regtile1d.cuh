/* Rung 8 of lesson 04's ladder (./demo 8): 1-D register tiling. What it adds to the shared tiles
 * of rungs 4-7: a thread computes TM results down one column, so each B value read from shared
 * memory feeds TM FMAs from a register instead of one. */
#pragma once
#include "gemm.cuh"

template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM / TM) * BN)
regtile1d_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * BN;
    static_assert(THREADS == BM * BK && THREADS == BK * BN,
                  "each thread loads exactly one element of each tile");
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % BN, t_row = tid / BN;
    const int a_row = tid / BK, a_col = tid % BK;
    const int b_row = tid / BN, b_col = tid % BN;
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[a_row * BK + a_col] = A[(size_t)a_row * K + a_col];
        Bs[b_row * BN + b_col] = B[(size_t)b_row * N + b_col];
        __syncthreads();
        A += BK;
        B += (size_t)BK * N;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k * BN + t_col];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                acc[i] += As[(t_row * TM + i) * BK + k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
        C[(size_t)(t_row * TM + i) * N + t_col] = acc[i];
}

#define V8_TILE 64, 64, 8, 8
static void gemm_v8(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    regtile1d_kernel<V8_TILE><<<dim3(p->N / 64, p->M / 64), (64 / 8) * 64>>>(p->A, p->B, p->C, p->M, p->N, p->K);
    CUDA_LAUNCH_CHECK();
}

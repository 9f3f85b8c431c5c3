/* Rung 9 of lesson 04's ladder (./demo 9): 2-D register tiling. What it adds to rung 8: a thread
 * computes a TM×TN block of results as outer products: per k, TM + TN shared loads feed TM·TN
 * FMAs (16 loads for 64 FMAs at 8×8). */
#pragma once
#include "gemm.cuh"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
regtile2d_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    static_assert((BM * BK) % THREADS == 0 && (BK * BN) % THREADS == 0, "tiles split evenly");
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % (BN / TN), t_row = tid / (BN / TN);
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        /* Consecutive threads load consecutive addresses of a tile row: coalesced. */
#pragma unroll
        for (int i = tid; i < BM * BK; i += THREADS)
            As[i] = A[(size_t)(i / BK) * K + i % BK];
#pragma unroll
        for (int i = tid; i < BK * BN; i += THREADS)
            Bs[i] = B[(size_t)(i / BN) * N + i % BN];
        __syncthreads();
        A += BK;
        B += (size_t)BK * N;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i)
                reg_m[i] = As[(t_row * TM + i) * BK + k];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                reg_n[j] = Bs[k * BN + t_col * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += reg_m[i] * reg_n[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            C[(size_t)(t_row * TM + i) * N + t_col * TN + j] = acc[i][j];
}

#define V9_TILE 128, 128, 8, 8, 8
static void gemm_v9(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    regtile2d_kernel<V9_TILE><<<dim3(p->N / 128, p->M / 128), 256>>>(p->A, p->B, p->C, p->M, p->N, p->K);
    CUDA_LAUNCH_CHECK();
}

/* Rung 10 of lesson 04's ladder (./demo 10): rung 9 with 16-byte accesses. What it adds: A is
 * stored transposed in shared memory (As[k][m]) so that a thread's TM values of A are
 * contiguous and load as float4, like B's; global loads and the stores of C are float4 too. */
#pragma once
#include "gemm.cuh"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
vectorized_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && BN % 4 == 0, "float4 granules");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "tiles split evenly into float4 loads");
    __shared__ __align__(16) float As[BK * BM];
    __shared__ __align__(16) float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % (BN / TN), t_row = tid / (BN / TN);
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = tid; i < BM * BK / 4; i += THREADS) {
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            const float4 v = *reinterpret_cast<const float4 *>(&A[(size_t)r * K + c]);
            As[(c + 0) * BM + r] = v.x;
            As[(c + 1) * BM + r] = v.y;
            As[(c + 2) * BM + r] = v.z;
            As[(c + 3) * BM + r] = v.w;
        }
#pragma unroll
        for (int i = tid; i < BK * BN / 4; i += THREADS) {
            const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
            *reinterpret_cast<float4 *>(&Bs[r * BN + c]) =
                *reinterpret_cast<const float4 *>(&B[(size_t)r * N + c]);
        }
        __syncthreads();
        A += BK;
        B += (size_t)BK * N;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                load4(&reg_m[i], &As[k * BM + t_row * TM + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                load4(&reg_n[j], &Bs[k * BN + t_col * TN + j]);
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
        for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4 *>(&C[(size_t)(t_row * TM + i) * N + t_col * TN + j]) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

static void gemm_v10(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    vectorized_kernel<V9_TILE><<<dim3(p->N / 128, p->M / 128), 256>>>(p->A, p->B, p->C, p->M, p->N, p->K);
    CUDA_LAUNCH_CHECK();
}

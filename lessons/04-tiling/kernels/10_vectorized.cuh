/* Rung 10 of lesson 04's ladder (./demo 10): rung 9 with 16-byte accesses. What it adds: every
 * load and store moves a float4: the global loads of both tiles, the reads of a thread's values
 * from shared memory and the stores of C. A float4 needs 4 consecutive floats, so a thread now
 * owns 8 consecutive rows and 8 consecutive columns (rung 9 strided them 16 apart): per k it
 * issues 4 shared loads instead of 16, which leaves the FMA units more of the issue slots. The
 * price: the 16 threads of a warp row read Bs at 32-byte steps, so a quarter-warp's 8 float4s
 * fall on 4 bank groups, two each: twice the minimal wavefronts on B. Rung 11 removes that. */
#pragma once
#include "gemm.cuh"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
vectorized_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    constexpr int LDA = BM + 4; /* 132 floats = 33 × 16 bytes: rows stay float4-aligned */
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && BN % 4 == 0, "float4 granules");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "tiles split evenly into float4 loads");
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % (BN / TN), t_row = tid / (BN / TN);
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        /* Row r, columns c..c+3 of the A tile go to column r of rows c..c+3 of As: with the
         * padding, the 4 scalar stores of a warp hit 32 different banks. */
#pragma unroll
        for (int l = 0; l < BM * BK / 4 / THREADS; ++l) {
            const int i = tid + l * THREADS;
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            const float4 v = *reinterpret_cast<const float4 *>(&A[(size_t)r * K + c]);
            As[(c + 0) * LDA + r] = v.x;
            As[(c + 1) * LDA + r] = v.y;
            As[(c + 2) * LDA + r] = v.z;
            As[(c + 3) * LDA + r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < BK * BN / 4 / THREADS; ++l) {
            const int i = tid + l * THREADS;
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
                load4(&reg_m[i], &As[k * LDA + t_row * TM + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                load4(&reg_n[j], &Bs[k * BN + t_col * TN + j]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += reg_m[i] * reg_n[j];
        }
        /* The next step's stores must wait until no warp still reads this step's tiles. */
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

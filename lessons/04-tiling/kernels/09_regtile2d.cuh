/* Rung 9 of lesson 04's ladder (./demo 9): 2-D register tiling. What it adds to rung 8: a thread
 * computes a TM×TN block of results as outer products: per k, TM + TN shared loads feed TM·TN
 * FMAs (16 loads for 64 FMAs at 8×8). Three details decide whether that gain shows:
 *  - a thread's results are strided, rows t_row + 16i and columns t_col + 16j, not 8 in a row:
 *    the 16 threads of a warp row then read 16 consecutive floats of Bs (one wavefront, no bank
 *    conflict), where 8 consecutive columns per thread put them 8 floats apart, on 4 banks;
 *  - A is stored transposed, As[k][m], so the values of A a warp reads at one k are
 *    consecutive too (two addresses per warp, a broadcast each);
 *  - the rows of As are padded by 4 floats: the transposing stores of 8 rows × 4 columns of a
 *    warp then land on 32 different banks instead of 4;
 * and __launch_bounds__(256, 2) keeps it at 128 registers, so two blocks share an SM. */
#pragma once
#include "gemm.cuh"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
regtile2d_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    constexpr int RS = BM / TM, CS = BN / TN; /* stride between a thread's rows, columns */
    constexpr int LDA = BM + 4;
    constexpr int A_STRIDE = THREADS / BK, B_STRIDE = THREADS / BN;
    static_assert(THREADS % BK == 0 && BM % A_STRIDE == 0, "the A tile splits evenly");
    static_assert(THREADS % BN == 0 && BK % B_STRIDE == 0, "the B tile splits evenly");
    __shared__ float As[BK * LDA];
    __shared__ float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % CS, t_row = tid / CS;
    /* Staging: consecutive threads read consecutive floats of a row of A (BK of them) and of
     * a row of B (BN): coalesced. */
    const int a_r = tid / BK, a_c = tid % BK;
    const int b_r = tid / BN, b_c = tid % BN;
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < BM / A_STRIDE; ++l)
            As[a_c * LDA + a_r + l * A_STRIDE] = A[(size_t)(a_r + l * A_STRIDE) * K + a_c];
#pragma unroll
        for (int l = 0; l < BK / B_STRIDE; ++l)
            Bs[(b_r + l * B_STRIDE) * BN + b_c] = B[(size_t)(b_r + l * B_STRIDE) * N + b_c];
        __syncthreads();
        A += BK;
        B += (size_t)BK * N;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i)
                reg_m[i] = As[k * LDA + t_row + i * RS];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                reg_n[j] = Bs[k * BN + t_col + j * CS];
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
        for (int j = 0; j < TN; ++j)
            C[(size_t)(t_row + i * RS) * N + t_col + j * CS] = acc[i][j];
}

#define V9_TILE 128, 128, 8, 8, 8
static void gemm_v9(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    regtile2d_kernel<V9_TILE><<<dim3(p->N / 128, p->M / 128), 256>>>(p->A, p->B, p->C, p->M, p->N, p->K);
    CUDA_LAUNCH_CHECK();
}

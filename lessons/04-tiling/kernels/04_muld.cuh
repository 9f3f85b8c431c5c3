/* Rungs 4 and 5 of lesson 04's ladder (./demo 4, ./demo 5): the Russian lecture's Muld. What it adds to
 * rung 3: a loop along K over pairs of tiles, so any K that is a multiple of the tile works, and
 * a second barrier per step. Rung 4 keeps the inner loop rolled as the G80 code did; rung 5
 * unrolls it by 16 (one template, two instances: the difference is one #pragma). */
#pragma once
#include "gemm.cuh"

/* Each block owns a TILE×TILE tile of C; each thread owns one element and loads one element of
 * the A tile and one of the B tile per step. */
template <int TILE, bool UNROLL>
__global__ void muld_kernel(const float *A, const float *B, float *C, int wA, int wB)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int a_begin = wA * TILE * blockIdx.y;
    const int a_end = a_begin + wA - 1;
    const int b_begin = TILE * blockIdx.x;
    float csub = 0.0f;
    for (int a = a_begin, b = b_begin; a <= a_end; a += TILE, b += TILE * wB) {
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        /* Barrier 1: thread (ty, tx) is about to read a whole row of As and column of Bs,
         * elements that 2·TILE-1 other threads (other warps among them) loaded. */
        __syncthreads();
        if constexpr (UNROLL) {
#pragma unroll
            for (int k = 0; k < TILE; ++k)
                csub += As[ty][k] * Bs[k][tx];
        } else {
#pragma unroll 1
            for (int k = 0; k < TILE; ++k)
                csub += As[ty][k] * Bs[k][tx];
        }
        /* Barrier 2: without it a fast warp would start the next step and overwrite As / Bs
         * while a slow warp is still multiplying the current tiles. */
        __syncthreads();
    }
    const int c = wB * TILE * blockIdx.y + TILE * blockIdx.x;
    C[c + wB * ty + tx] = csub;
}

template <int TILE, bool UNROLL>
static void launch_muld(const gemm_problem *p)
{
    const dim3 block(TILE, TILE), grid(p->N / TILE, p->M / TILE);
    muld_kernel<TILE, UNROLL><<<grid, block>>>(p->A, p->B, p->C, p->K, p->N);
    CUDA_LAUNCH_CHECK();
}

static void gemm_v4(void *arg)
{
    launch_muld<16, false>((const gemm_problem *)arg);
}

static void gemm_v5(void *arg)
{
    launch_muld<16, true>((const gemm_problem *)arg);
}

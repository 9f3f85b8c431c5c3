/* Rung 6 of lesson 04's ladder (./demo 6): the Russian lecture's alternative schedule for rung 5. What it
 * adds: two tile buffers. While step s multiplies buffer s%2, the loads of step s+1 are already
 * in flight (issued into registers before the multiply, stored to the other buffer after it), so
 * global latency hides behind the FMAs and one barrier per step is enough. */
#pragma once
#include "gemm.cuh"

template <int TILE>
__global__ void prefetch_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int steps = K / TILE;
    As[0][ty][tx] = A[(size_t)row * K + tx];
    Bs[0][ty][tx] = B[(size_t)ty * N + col];
    __syncthreads();
    float csub = 0.0f;
    for (int s = 0; s < steps; ++s) {
        const int cur = s & 1;
        float a_next = 0.0f, b_next = 0.0f;
        if (s + 1 < steps) {
            a_next = A[(size_t)row * K + (s + 1) * TILE + tx];
            b_next = B[(size_t)((s + 1) * TILE + ty) * N + col];
        }
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            csub += As[cur][ty][k] * Bs[cur][k][tx];
        /* Writing buffer cur^1 is safe without a barrier before it: its last readers were in
         * step s-1, and every thread passed the barrier that closed step s-1. */
        if (s + 1 < steps) {
            As[cur ^ 1][ty][tx] = a_next;
            Bs[cur ^ 1][ty][tx] = b_next;
        }
        /* Step s+1 reads buffer cur^1, filled by other threads just above. */
        __syncthreads();
    }
    C[(size_t)row * N + col] = csub;
}

static void gemm_v6(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    const dim3 block(16, 16), grid(p->N / 16, p->M / 16);
    prefetch_kernel<16><<<grid, block>>>(p->A, p->B, p->C, p->M, p->N, p->K);
    CUDA_LAUNCH_CHECK();
}

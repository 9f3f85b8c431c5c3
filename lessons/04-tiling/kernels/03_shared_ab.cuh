/* Rung 3 of lesson 04's ladder (./demo 3): the Spanish lecture's sharedABMultiply. What it adds to rung 2:
 * the B tile goes through shared memory too, which needs a block-wide barrier. */
#pragma once
#include "gemm.cuh"

__global__ void shared_ab_multiply_kernel(const float *a, const float *b, float *c, int n)
{
    __shared__ float a_tile[PANEL_W][PANEL_W];
    __shared__ float b_tile[PANEL_W][PANEL_W];
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    a_tile[threadIdx.y][threadIdx.x] = a[row * PANEL_W + threadIdx.x];
    b_tile[threadIdx.y][threadIdx.x] = b[threadIdx.y * n + col];
    /* Column threadIdx.x of b_tile was written by 32 different warps: a block barrier. */
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < PANEL_W; ++i)
        sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
    c[(size_t)row * n + col] = sum;
}

static void gemm_v3(void *arg)
{
    launch_panel(shared_ab_multiply_kernel, arg);
}

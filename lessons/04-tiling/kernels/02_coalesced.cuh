/* Rung 2 of lesson 04's ladder (./demo 2): the Spanish lecture's coalescedMultiply. What it adds to rung 1:
 * the block's A tile goes through shared memory, loaded once with coalesced reads. */
#pragma once
#include "gemm.cuh"

__global__ void coalesced_multiply_kernel(const float *a, const float *b, float *c, int n)
{
    __shared__ float a_tile[PANEL_W][PANEL_W];
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    a_tile[threadIdx.y][threadIdx.x] = a[row * PANEL_W + threadIdx.x];
    /* Row threadIdx.y of a_tile is written and read by one warp only, so a warp barrier is
     * enough. The lecture had none: before Volta a warp ran in lockstep; with independent thread
     * scheduling the lanes may not have finished writing, so it is required today. */
    __syncwarp();
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < PANEL_W; ++i)
        sum += a_tile[threadIdx.y][i] * b[i * n + col];
    c[(size_t)row * n + col] = sum;
}

static void gemm_v2(void *arg)
{
    launch_panel(coalesced_multiply_kernel, arg);
}

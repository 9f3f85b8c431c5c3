/* Rung 1 of lesson 04's ladder (./demo 1): the Spanish lecture's simpleMultiply on its panel product,
 * C (n×n) = A (n×32) · B (32×n), one 32×32 block per 32×32 tile of C, A and B straight from
 * global memory. */
#pragma once
#include "gemm.cuh"

__global__ void simple_multiply_kernel(const float *a, const float *b, float *c, int n)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    /* A warp shares `row`: each a[] read is one 4-byte word broadcast to 32 threads, so a
     * whole 32-byte sector moves for 4 useful bytes; b[] reads are coalesced rows. */
#pragma unroll
    for (int i = 0; i < PANEL_W; ++i)
        sum += a[row * PANEL_W + i] * b[i * n + col];
    c[(size_t)row * n + col] = sum;
}

static void gemm_v1(void *arg)
{
    launch_panel(simple_multiply_kernel, arg);
}

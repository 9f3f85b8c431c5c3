// Version 2 of lesson 09's demo (./demo 2): the naive kernel, one thread per element of C, and
// its launch with the report's 32×32 blocks. Included by demo.cu after the problem struct.
#pragma once

// ----- version 2: naive. Thread (i, j) walks columns i and j of A down its M rows. Along x,
// a warp reads 32 consecutive elements of one row of A (coalesced) and one broadcast element;
// nothing is reused from one thread to the next except through the caches.
static __global__ void ata_naive_v2(const double *__restrict__ A, double *__restrict__ C, int M, int N)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= N || j >= N)
        return;
    double acc = 0.0;
    for (int k = 0; k < M; k++)
        acc = fma(A[(size_t)k * N + i], A[(size_t)k * N + j], acc);
    C[(size_t)i * N + j] = acc;
}

static void run_naive_v2(void *arg)
{
    const problem *p = (const problem *)arg;
    dim3 block(32, 32), grid((p->N + 31) / 32, (p->N + 31) / 32); // the report's 32×32 blocks
    ata_naive_v2<<<grid, block>>>(p->A, p->C, p->M, p->N);
    CUDA_LAUNCH_CHECK();
}

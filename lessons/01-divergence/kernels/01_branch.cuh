// Versions 1 and 2 of lesson 01's demo (./demo 1, ./demo 2): a branch that splits every warp
// against one that splits none, the same two paths of FMAs.
// Included by demo.cu after the problem struct and the helpers it shares.
#pragma once

// ======================================================================= kernels
static __device__ float path_a(float x)
{
    for (int k = 0; k < BRANCH_ITERS; ++k) x = fmaf(x, 0.999f, 0.001f);
    return x;
}

// A different dependence (x·x instead of x·constant), so the compiler cannot merge the two paths
// into one loop with selected constants: each path stays its own loop.
static __device__ float path_b(float x)
{
    for (int k = 0; k < BRANCH_ITERS; ++k) x = fmaf(x, x, -0.25f);
    return x;
}

// Version 1: odd and even lanes disagree in every warp. The warp runs path_a with the even lanes
// masked off, then path_b with the odd lanes masked off: twice the issue slots for the same work.
static __global__ void branch_thread_v1(const float *in, float *out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = in[i];
    out[i] = (threadIdx.x % 2) ? path_a(x) : path_b(x);
}

// Version 2: the same two paths, chosen per warp: a warp's 32 lanes always agree.
static __global__ void branch_warp_v2(const float *in, float *out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = in[i];
    out[i] = ((threadIdx.x / warpSize) % 2) ? path_a(x) : path_b(x);
}

// ======================================================================= launchers
static void run_branch_thread_v1(void *arg)
{
    problem *p = (problem *)arg;
    branch_thread_v1<<<blocks_for(p->n, 256), 256>>>(p->in, p->out, p->n);
    CUDA_LAUNCH_CHECK();
}

static void run_branch_warp_v2(void *arg)
{
    problem *p = (problem *)arg;
    branch_warp_v2<<<blocks_for(p->n, 256), 256>>>(p->in, p->out, p->n);
    CUDA_LAUNCH_CHECK();
}

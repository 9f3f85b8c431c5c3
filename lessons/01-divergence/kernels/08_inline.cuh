// Versions 8 and 9 of lesson 01's demo (./demo 8, ./demo 9): a loop that calls a device
// function out of line against the same loop with it inlined.
// Included by demo.cu after the problem struct and the helpers it shares.
#pragma once

// ======================================================================= kernels
// Versions 8-9: one FMA of work per call. Out of line, each call also pays the call and return,
// the moves into the argument registers the ABI fixes, and a loop the compiler cannot unroll
// across the call.
static __device__ __noinline__ float step_call(float x)
{
    return fmaf(x, 0.999f, 0.001f);
}

static __device__ __forceinline__ float step_inline(float x)
{
    return fmaf(x, 0.999f, 0.001f);
}

static __global__ void call_noinline_v8(const float *in, float *out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    for (int k = 0; k < CALL_ITERS; ++k) x = step_call(x);
    out[i] = x;
}

static __global__ void call_inline_v9(const float *in, float *out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    for (int k = 0; k < CALL_ITERS; ++k) x = step_inline(x);
    out[i] = x;
}

// ======================================================================= launchers
static void run_noinline_v8(void *arg)
{
    problem *p = (problem *)arg;
    call_noinline_v8<<<blocks_for(p->n, 256), 256>>>(p->in, p->out, p->n);
    CUDA_LAUNCH_CHECK();
}

static void run_inline_v9(void *arg)
{
    problem *p = (problem *)arg;
    call_inline_v9<<<blocks_for(p->n, 256), 256>>>(p->in, p->out, p->n);
    CUDA_LAUNCH_CHECK();
}

// Versions 6 and 7 of lesson 01's demo (./demo 6, ./demo 7): 16 strided loads per thread, one
// in flight against 16.
// Included by demo.cu after the problem struct and the helpers it shares.
#pragma once

// ======================================================================= kernels
// Versions 6-7: thread t adds in[t + j * threads] for j < 16 (coalesced for every j). Without
// unrolling, each iteration's add waits for its own load before the next load issues: one load in
// flight per thread. Unrolled, the 16 independent loads issue back to back and their latencies
// overlap. The branch saved per iteration is the smaller gain.
static __global__ void strided_sum_rolled_v6(const float *in, float *out)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int j = 0; j < LOADS_PER_THREAD; ++j) acc += in[t + j * threads];
    out[t] = acc;
}

static __global__ void strided_sum_unrolled_v7(const float *in, float *out)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned threads = gridDim.x * blockDim.x;
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < LOADS_PER_THREAD; ++j) acc += in[t + j * threads];
    out[t] = acc;
}

// ======================================================================= launchers
// n is a multiple of 256 * LOADS_PER_THREAD (see main), so every thread has all 16 loads.
static void run_rolled_v6(void *arg)
{
    problem *p = (problem *)arg;
    strided_sum_rolled_v6<<<p->n / LOADS_PER_THREAD / 256, 256>>>(p->in, p->out);
    CUDA_LAUNCH_CHECK();
}

static void run_unrolled_v7(void *arg)
{
    problem *p = (problem *)arg;
    strided_sum_unrolled_v7<<<p->n / LOADS_PER_THREAD / 256, 256>>>(p->in, p->out);
    CUDA_LAUNCH_CHECK();
}

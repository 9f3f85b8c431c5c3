// Versions 3 to 5 of lesson 01's demo (./demo 3 to ./demo 5): three block reduction trees, from
// the divergent interleaved one to warp shuffles.
// Included by demo.cu after the problem struct and the helpers it shares.
#pragma once

// ======================================================================= kernels
// Versions 3-5 each reduce REDUCE_THREADS inputs per block to one partial; the launcher applies
// the same kernel again to the partials until one value is left.
//
// Version 3: at step s only threads with tid % (2s) == 0 add. At s = 1 half the lanes of every
// warp work, at s = 2 a quarter...: every warp stays busy to the end while doing less and less,
// and the % on a variable is itself a slow integer sequence.
static __global__ void reduce_interleaved_v3(const float *in, unsigned n, float *partial)
{
    __shared__ float s_data[REDUCE_THREADS];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    s_data[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) s_data[tid] += s_data[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s_data[0];
}

// Version 4: at step s the threads tid < s add s_data[tid + s]. The active threads are the low
// ones, so whole warps go idle together (128, 64, 32 active threads are 4, 2, 1 full warps); only
// the last five steps, s < 32, split a warp.
static __global__ void reduce_sequential_v4(const float *in, unsigned n, float *partial)
{
    __shared__ float s_data[REDUCE_THREADS];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    s_data[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) s_data[tid] += s_data[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s_data[0];
}

// Version 5: as 4 while s >= 32, then the first warp finishes in registers with shuffles: all 32
// lanes take part in every shuffle, no shared memory, no block-wide barrier for the last steps.
static __global__ void reduce_shuffle_v5(const float *in, unsigned n, float *partial)
{
    __shared__ float s_data[REDUCE_THREADS];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    s_data[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s >= 32; s /= 2) {
        if (tid < s) s_data[tid] += s_data[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s_data[tid];
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
        if (tid == 0) partial[blockIdx.x] = v;
    }
}

// ======================================================================= launchers
static void run_reduce_interleaved_v3(void *arg)
{
    reduce_with((problem *)arg, reduce_interleaved_v3);
}

static void run_reduce_sequential_v4(void *arg)
{
    reduce_with((problem *)arg, reduce_sequential_v4);
}

static void run_reduce_shuffle_v5(void *arg)
{
    reduce_with((problem *)arg, reduce_shuffle_v5);
}

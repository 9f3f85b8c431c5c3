// Versions 10 and 11 of lesson 01's demo (./demo 10, ./demo 11): the reduce_sum task's speed case,
// 2^28 floats, summed by the library (CUB) and by our top rung, side by side in one table.
// Included by demo.cu after the problem struct and FULL_MASK it uses.
#pragma once

#include <cub/device/device_reduce.cuh>

#define WAVE_THREADS 256 // version 11's block size

static_assert(WAVE_THREADS % 32 == 0 && WAVE_THREADS <= 1024, "block_total assumes whole warps");

// Version 11's tree: every lane in every shuffle step, so no warp splits; then warp 0 adds the
// warps' totals. The total is valid in thread 0.
static __device__ float warp_total(float v)
{
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

static __device__ float block_total(float v)
{
    __shared__ float warp_totals[WAVE_THREADS / 32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_total(v);
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads(); // warp 0 reads what every warp wrote
    if (warp == 0) v = warp_total(lane < WAVE_THREADS / 32 ? warp_totals[lane] : 0.0f);
    return v;
}

// Version 11: the top rung, one idea on top of another.
// - 16-byte loads: a float4 per load instruction, a quarter of the instructions of version 7
//   (the input comes from cudaMalloc, so it is 16-byte aligned; the n % 4 tail is scalar).
// - one wave of blocks (the launcher asks the occupancy API how many fit) and a grid-stride loop
//   with four independent float4 loads per step: 64 bytes in flight per thread, enough to keep
//   DRAM busy without a second wave of blocks or a tree per 256 elements.
// - one launch: each block leaves its total in partial[], and the last block to finish (the
//   counter tells it) adds the partials and resets the counter for the next call.
static __global__ void reduce_wave_v11(const float *__restrict__ in, size_t n, float *partial,
                                       unsigned *blocks_done, float *out)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const float4 *in4 = (const float4 *)in;
    const size_t n4 = n / 4;
    float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    size_t i = tid;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
        acc0 += (a.x + a.y) + (a.z + a.w);
        acc1 += (b.x + b.y) + (b.z + b.w);
        acc2 += (c.x + c.y) + (c.z + c.w);
        acc3 += (d.x + d.y) + (d.z + d.w);
    }
    for (; i < n4; i += stride) {
        const float4 a = in4[i];
        acc0 += (a.x + a.y) + (a.z + a.w);
    }
    if (tid < n % 4) acc1 += in[4 * n4 + tid];
    const float total = block_total((acc0 + acc1) + (acc2 + acc3));

    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = total;
        // The partial must be visible to every block before the counter says it is there.
        __threadfence();
        last = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
        __threadfence(); // and the last block must not read the partials before that
    }
    __syncthreads();
    if (!last) return; // the whole block leaves together: last is the same for all its threads
    float v = 0.0f;
    // __ldcg reads through the L2, where every block's store landed, never a stale L1 line.
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) v += __ldcg(&partial[b]);
    v = block_total(v);
    if (threadIdx.x == 0) {
        out[0] = v;
        *blocks_done = 0;
    }
}

// The library's answer: two kernels of its own choosing; the scratch was allocated beforehand,
// so the timed call is only the reduction.
static void run_cub_v10(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cub::DeviceReduce::Sum(p->cub_temp, p->cub_temp_bytes, p->in, p->sum, p->n));
    p->result = p->sum;
}

static void run_wave_v11(void *arg)
{
    problem *p = (problem *)arg;
    reduce_wave_v11<<<p->wave_blocks, WAVE_THREADS>>>(p->in, p->n, p->wave_partial, p->blocks_done,
                                                      p->sum);
    CUDA_LAUNCH_CHECK();
    p->result = p->sum;
}

// The device state of versions 10-11 beside their input (big->in, big->n, set by the caller):
// the result, CUB's scratch (sized by a first call with no scratch), version 11's grid of one
// wave of blocks, its partials and its counter.
static void library_alloc(problem *big, int sm_count)
{
    CUDA_CHECK(cudaMalloc(&big->sum, sizeof(float)));
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, big->cub_temp_bytes, big->in, big->sum, big->n));
    CUDA_CHECK(cudaMalloc(&big->cub_temp, big->cub_temp_bytes));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_wave_v11, WAVE_THREADS, 0));
    big->wave_blocks = (unsigned)(sm_count * (per_sm > 0 ? per_sm : 1));
    CUDA_CHECK(cudaMalloc(&big->wave_partial, big->wave_blocks * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&big->blocks_done, sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(big->blocks_done, 0, sizeof(unsigned)));
}

static void library_free(problem *big)
{
    CUDA_CHECK(cudaFree(big->sum));
    CUDA_CHECK(cudaFree(big->cub_temp));
    CUDA_CHECK(cudaFree(big->wave_partial));
    CUDA_CHECK(cudaFree(big->blocks_done));
}

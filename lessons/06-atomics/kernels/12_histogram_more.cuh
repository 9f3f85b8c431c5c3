// Versions 12 to 14 of lesson 06's demo (./demo 12 13 14): the library's histogram (CUB) beside
// ours, and warp aggregation done where it pays. Included by demo.cu after BINS, BLOCK,
// FULL_MASK, count_byte_aggregated and the problem struct it uses.
#pragma once

#include <cub/device/device_histogram.cuh>

static_assert(BLOCK % 32 == 0, "version 13 makes whole warps take the same loop trips");

// Four bytes of one word into the private histogram, one shared atomic each (as version 5).
__device__ static void count_word_each(unsigned *local, unsigned w)
{
    atomicAdd(&local[w & 0xff], 1u);
    atomicAdd(&local[(w >> 8) & 0xff], 1u);
    atomicAdd(&local[(w >> 16) & 0xff], 1u);
    atomicAdd(&local[w >> 24], 1u);
}

// Version 13: version 5, plus warp aggregation only where there is something to aggregate.
// Version 6 pays a __match_any_sync for every byte, 16 per load, whatever the data; on uniform
// bytes nearly every lane is its own group and the match is pure overhead. Here a lane first
// asks the cheap question, "are my 16 bytes one value (a run)?" (four compares), and the warp
// votes once per load. Only when some lane holds a run does the warp pay one match, on the run's
// bin: the lanes with a run of the same bin form one group, and its leader adds 16 x (group
// size) with one atomic. On one hot bin that is one shared atomic per 512 bytes instead of 512;
// on uniform bytes no lane has a run, and the cost over version 5 is the compares and one vote.
// The loop steps whole warps together (base is the warp's first index, stride a multiple of 32),
// so every lane of the warp is present at the vote and the match, as FULL_MASK promises.
static __global__ void histogram_runs_v13(const uint8_t *in, size_t n, unsigned *bins)
{
    __shared__ unsigned local[BINS];
    if (threadIdx.x < BINS)
        local[threadIdx.x] = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *in16 = (const uint4 *)in;
    const size_t n16 = n / 16;
    for (size_t base = tid - lane; base < n16; base += stride) {
        const size_t i = base + lane;
        const bool valid = i < n16;
        const uint4 v = valid ? in16[i] : make_uint4(0, 0, 0, 0);
        const unsigned bin = v.x & 0xffu;
        const unsigned run_word = bin * 0x01010101u; // the bin in all four bytes
        const bool run = valid && v.x == run_word && v.y == run_word && v.z == run_word &&
                         v.w == run_word;
        if (__any_sync(FULL_MASK, run)) {
            // Lanes without a run get a key no bin has (BINS + lane): each is a group of one.
            const unsigned peers = __match_any_sync(FULL_MASK, run ? bin : BINS + lane);
            if (run && (int)lane == __ffs(peers) - 1)
                atomicAdd(&local[bin], 16u * (unsigned)__popc(peers));
        }
        if (valid && !run) {
            count_word_each(local, v.x);
            count_word_each(local, v.y);
            count_word_each(local, v.z);
            count_word_each(local, v.w);
        }
    }
    for (size_t i = n16 * 16 + tid; i < n; i += stride)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    if (threadIdx.x < BINS && local[threadIdx.x])
        atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// Version 14: version 3 (one global atomic per byte) with the warp's equal bytes counted once,
// as version 6 does in shared memory. Here the atomics are what costs: on one bin every byte of
// version 3 queues at one address in the L2, and the match cuts 32 of them to one. On uniform
// bytes a warp's 32 lanes hold about 30 values, so the match saves almost nothing and costs a
// slow instruction per byte. Aggregate where the atomics are the bottleneck and equal
// addresses are likely.
static __global__ void histogram_global_warp_v14(const uint8_t *in, size_t n, unsigned *bins)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        count_byte_aggregated(bins, in[i]);
}

// Version 12: the library. 257 even levels 0, 1, ..., 256 make bin b hold the bytes equal to b.
// CUB zeroes the bins itself; its scratch was sized and allocated once, before any timed call.
static void run_hist_cub_v12(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(p->cub_temp, p->cub_temp_bytes, p->bytes, p->bins,
                                                   BINS + 1, 0, BINS, p->n, 0));
}

static void run_hist_runs_v13(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned), 0));
    histogram_runs_v13<<<p->grid, BLOCK>>>(p->bytes, p->n, p->bins);
    CUDA_LAUNCH_CHECK();
}

static void run_hist_global_warp_v14(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned), 0));
    histogram_global_warp_v14<<<p->grid, BLOCK>>>(p->bytes, p->n, p->bins);
    CUDA_LAUNCH_CHECK();
}

// The histogram's goals, from one input's medians: our best at least CUB's throughput; warp
// aggregation of runs (13) a win over plain privatization (5) on one bin, costing at most 5 %
// elsewhere; and on one bin, warp aggregation of global atomics (14) ten times version 3.
static void histogram_goals(lab_demo *d, const char *input, const double *ms)
{
    static const int ours[] = {3, 4, 5, 6, 13, 14};
    double best = 0.0;
    for (size_t k = 0; k < sizeof ours / sizeof *ours; k++)
        if (ms[ours[k]] > 0.0 && (best == 0.0 || ms[ours[k]] < best))
            best = ms[ours[k]];
    char what[128];
    if (best > 0.0 && ms[12] > 0.0) {
        snprintf(what, sizeof what, "histogram, %s: our best / CUB (12) throughput", input);
        lab_demo_goal(d, what, ms[12] / best, 1.0, "x", 0);
    }
    if (ms[5] > 0.0 && ms[13] > 0.0) {
        const int hot = strcmp(input, "one bin") == 0;
        snprintf(what, sizeof what, "histogram, %s: warp aggregation (13) / shared (5) throughput", input);
        lab_demo_goal(d, what, ms[5] / ms[13], hot ? 1.0 : 0.95, "x", 0);
    }
    if (ms[3] > 0.0 && ms[14] > 0.0 && strcmp(input, "one bin") == 0) {
        snprintf(what, sizeof what, "histogram, %s: warp aggregation of global atomics (14) / global (3) throughput", input);
        lab_demo_goal(d, what, ms[3] / ms[14], 10.0, "x", 0);
    }
}

// CUB's scratch for n bytes: the first call, with no scratch, only says how much it needs.
static void hist_cub_alloc(problem *p, size_t n)
{
    p->cub_temp_bytes = 0;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven((void *)NULL, p->cub_temp_bytes, p->bytes, p->bins,
                                                   BINS + 1, 0, BINS, n, 0));
    CUDA_CHECK(cudaMalloc(&p->cub_temp, p->cub_temp_bytes));
}

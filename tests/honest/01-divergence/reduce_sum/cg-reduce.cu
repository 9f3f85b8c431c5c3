// Honest submission: cooperative groups: tiled_partition and cg::reduce (01-divergence/reduce_sum).
/* reduce_sum.cu — reference solution: two passes, warp shuffles, no divergent tree. */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "lab.h"
#include "reduce_sum.h"

#include <stdint.h>

#define PASS1_THREADS 256
#define PASS2_THREADS 1024
#define FULL_MASK 0xffffffffu

static_assert(PASS1_THREADS % 32 == 0 && PASS2_THREADS % 32 == 0,
              "block_sum assumes whole warps");
static_assert(PASS2_THREADS <= REDUCE_SUM_WORK_FLOATS, "pass 2 reads the partials with one block");

/* Every lane takes part in every step, so the warp never splits: the halving happens in the
 * distance between partners, not in which threads are active. Lane 0 ends with the total. */
static __device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* Sum over the block, valid in thread 0. The only branches test the warp index (uniform across a
 * warp) or select one lane for a single store, so no warp runs both sides of a long branch. */
static __device__ float block_sum(float v)
{
    __shared__ float warp_totals[32];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_totals[warp] = v;
    /* The first warp reads what every other warp wrote. */
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / 32) ? warp_totals[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

/* Pass 1: a grid-stride loop, so a fixed grid that just fills the GPU covers any n. The body reads
 * float4 (16-byte loads, a quarter of the instructions); `head` scalar elements come first so that
 * the float4 pointer is 16-byte aligned whatever the caller's pointer. Four independent loads per
 * iteration keep enough bytes in flight to saturate DRAM with one block's worth of warps. */
static __global__ void partial_sums(const float *x, size_t n, float *partial)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t head = ((16 - ((uintptr_t)x & 15)) & 15) / sizeof(float);
    if (head > n) head = n;
    const size_t n4 = (n - head) / 4;
    const float4 *body = (const float4 *)(x + head);

    float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
    if (tid < head) acc0 += x[tid];
    size_t i = tid;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = body[i], b = body[i + stride];
        const float4 c = body[i + 2 * stride], d = body[i + 3 * stride];
        acc0 += (a.x + a.y) + (a.z + a.w);
        acc1 += (b.x + b.y) + (b.z + b.w);
        acc2 += (c.x + c.y) + (c.z + c.w);
        acc3 += (d.x + d.y) + (d.z + d.w);
    }
    for (; i < n4; i += stride) {
        const float4 a = body[i];
        acc0 += (a.x + a.y) + (a.z + a.w);
    }
    const size_t tail = head + 4 * n4; /* at most 3 elements remain */
    if (tail + tid < n) acc1 += x[tail + tid];

    const float total = block_sum((acc0 + acc1) + (acc2 + acc3));
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

/* Pass 2: one block folds the per-block partials into the final sum. */
static __global__ void final_sum(const float *partial, unsigned count, float *out)
{
    float acc = 0.0f;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
    const float total = block_sum(acc);
    if (threadIdx.x == 0) out[0] = total;
}

/* Enough resident blocks to fill every SM once: more only adds partials, fewer leaves SMs idle. */
static unsigned pass1_blocks(size_t n)
{
    static int resident = 0;
    if (resident == 0) {
        int device, sms, per_sm;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, partial_sums,
                                                                 PASS1_THREADS, 0));
        resident = sms * per_sm;
        if (resident > REDUCE_SUM_WORK_FLOATS) resident = REDUCE_SUM_WORK_FLOATS;
        if (resident < 1) resident = 1;
    }
    const size_t needed = (n + 4 * PASS1_THREADS - 1) / (4 * PASS1_THREADS);
    return needed < (size_t)resident ? (unsigned)needed : (unsigned)resident;
}

void reduce_sum(const float *x, size_t n, float *out, float *work)
{
    const unsigned blocks = pass1_blocks(n);
    partial_sums<<<blocks, PASS1_THREADS>>>(x, n, work);
    CUDA_LAUNCH_CHECK();
    final_sum<<<1, PASS2_THREADS>>>(work, blocks, out);
    CUDA_LAUNCH_CHECK();
}

namespace cg = cooperative_groups;

// The same block sum written with cooperative groups, kept to compare with warp_sum.
__global__ void block_sum_cg(const float *x, size_t n, float *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    float s = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0)
        atomicAdd(out, s);
}

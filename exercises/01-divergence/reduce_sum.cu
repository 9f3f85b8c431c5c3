/* reduce_sum.cu — your implementation of the contract in lessons/01-divergence/reduce_sum.h.
 *
 * The plan is laid out for you: pass 1 has every block sum a grid-stride slice of x into one
 * partial in `work`; pass 2 has a single block sum those partials into out[0]. What is missing is
 * the tree inside a block. As shipped it compiles and runs, and out[0] keeps the NaN the harness
 * put there, so every case fails. Build and grade: see the lesson notes.
 */
#include "lab.h"
#include "reduce_sum.h"

#define PASS1_THREADS 256
#define PASS2_THREADS 1024
#define FULL_MASK 0xffffffffu

/* Sum of v over the 32 lanes of a warp; lane 0 must end with the total. */
static __device__ float warp_sum(float v)
{
    // TODO: add the values of the other lanes with __shfl_down_sync(FULL_MASK, v, offset), halving offset from 16 to 1.
    return v;
}

/* Sum of v over the whole block; thread 0 must end with the total. */
static __device__ float block_sum(float v)
{
    // TODO: reduce within each warp, store each warp's total in a __shared__ float[32], __syncthreads(), then let warp 0 sum the totals. No `tid % (2 * s)` test.
    return warp_sum(v);
}

static __global__ void partial_sums(const float *x, size_t n, float *partial)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    float acc = 0.0f;
    // TODO: for speed, read float4 once the pointer is 16-byte aligned, and keep several loads in flight per iteration.
    for (size_t i = tid; i < n; i += stride) acc += x[i];
    const float total = block_sum(acc);
    // TODO: thread 0 writes the block's total to partial[blockIdx.x].
    (void)total;
    (void)partial;
}

static __global__ void final_sum(const float *partial, unsigned count, float *out)
{
    // TODO: sum partial[0..count) with a block-stride loop and block_sum, and let thread 0 write out[0].
    (void)partial;
    (void)count;
    (void)out;
}

void reduce_sum(const float *x, size_t n, float *out, float *work)
{
    // TODO: choose the number of pass-1 blocks: enough to fill every SM, never more than REDUCE_SUM_WORK_FLOATS.
    const unsigned blocks = 1;
    partial_sums<<<blocks, PASS1_THREADS>>>(x, n, work);
    CUDA_LAUNCH_CHECK();
    final_sum<<<1, PASS2_THREADS>>>(work, blocks, out);
    CUDA_LAUNCH_CHECK();
}

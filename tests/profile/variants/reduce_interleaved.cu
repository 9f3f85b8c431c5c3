/* Slow on purpose (tests/profile/variants.tsv): lesson 01's first tree. One element per
 * thread, then an interleaved tree in shared memory: at step s only the threads whose index
 * is a multiple of 2s add, so the lanes of every warp take different branches and most of a
 * warp idles; each block's sum goes to out with one atomic. */
#include "lab.h"
#include "reduce_sum.h"

#define THREADS 256

static __global__ void reduce_interleaved(const float *x, size_t n, float *out)
{
    __shared__ float s[THREADS];
    const size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned step = 1; step < THREADS; step *= 2) {
        if (threadIdx.x % (2 * step) == 0)
            s[threadIdx.x] += s[threadIdx.x + step];
        /* the next step reads what this one wrote, in other warps too */
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, s[0]);
}

void reduce_sum(const float *x, size_t n, float *out, float *work)
{
    (void)work;
    CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, 0));
    const size_t blocks = (n + THREADS - 1) / THREADS;
    if (blocks == 0)
        return;
    reduce_interleaved<<<(unsigned)blocks, THREADS>>>(x, n, out);
    CUDA_LAUNCH_CHECK();
}

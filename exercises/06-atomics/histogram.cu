/* histogram.cu — task `histogram` of lesson 06-atomics. The contract is in
 * lessons/06-atomics/histogram.h; the notes explain privatization.
 * Build and check:  make build/exercises/06-atomics/histogram && build/exercises/06-atomics/histogram */
#include "histogram.h"
#include "lab.h"

#define BLOCK 256
#define GRID 1024

__global__ void histogram_kernel(const uint8_t *in, size_t n, unsigned int *bins)
{
    // TODO: declare the block's private histogram (__shared__, HISTOGRAM_BINS counters), zero it, and __syncthreads() before anyone counts.
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        // TODO: count in[i] into the private histogram with a shared-memory atomicAdd.
    }
    // TODO: __syncthreads(), then add each non-zero private bin into bins with one global atomicAdd.
}

void histogram(const uint8_t *in, size_t n, unsigned int *bins)
{
    // TODO: zero bins before the kernel adds into them (cudaMemsetAsync on stream 0).
    histogram_kernel<<<GRID, BLOCK>>>(in, n, bins);
    CUDA_LAUNCH_CHECK();
}

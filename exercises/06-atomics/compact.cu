/* compact.cu — task `compact` of lesson 06-atomics. The contract is in
 * lessons/06-atomics/compact.h; the notes explain the append pattern and warp aggregation.
 * Build and check:  make build/exercises/06-atomics/compact && build/exercises/06-atomics/compact */
#include "compact.h"
#include "lab.h"

#define BLOCK 256

__global__ void compact_kernel(const int32_t *in, size_t n, int32_t *out, unsigned int *counter)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // TODO: when compact_keep(in[i]), take a slot with atomicAdd(counter, 1) and store in[i] there; then cut the atomics to one per block (lesson.ini hints).
}

size_t compact(const int32_t *in, size_t n, int32_t *out, unsigned int *counter)
{
    // TODO: zero *counter before the kernel hands out slots (cudaMemsetAsync on stream 0).
    const unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);
    compact_kernel<<<grid, BLOCK>>>(in, n, out, counter);
    CUDA_LAUNCH_CHECK();
    unsigned int count = 0;
    CUDA_CHECK(cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost));
    return count;
}

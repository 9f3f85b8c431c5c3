/* Slow on purpose (tests/profile/variants.tsv): one global atomic per kept element, all on
 * the one counter: every kept element queues at the same L2 address. */
#include "compact.h"
#include "lab.h"

#define BLOCK 256

__global__ void compact_each(const int32_t *in, size_t n, int32_t *out, unsigned int *counter)
{
    for (size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += (size_t)gridDim.x * BLOCK) {
        const int32_t v = in[i];
        if (compact_keep(v))
            out[atomicAdd(counter, 1u)] = v;
    }
}

size_t compact(const int32_t *in, size_t n, int32_t *out, unsigned int *counter)
{
    CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof *counter, 0));
    const size_t needed = (n + BLOCK - 1) / BLOCK;
    const unsigned grid = (unsigned)(needed < 4096 ? needed : 4096);
    if (grid)
        compact_each<<<grid, BLOCK>>>(in, n, out, counter);
    CUDA_LAUNCH_CHECK();
    unsigned int count = 0;
    CUDA_CHECK(cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost));
    return count;
}

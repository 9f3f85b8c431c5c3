/* Slow on purpose (tests/profile/variants.tsv): every byte an atomic on one of 256 global
 * bins, no private histogram in shared memory: the hot bins queue at a few L2 slices. */
/* histogram.cu — reference solution of task `histogram` (contract in lessons/06-atomics/histogram.h).
 * One private histogram per block in shared memory; global atomics only to merge them. */
#include "histogram.h"
#include "lab.h"

#define BLOCK 256
/* Enough resident blocks to hide memory latency; more only adds merges (256 global atomics
 * per block). */
#define BLOCKS_PER_SM 8


/* Four bytes of one word into the private histogram. */
__device__ static void count_word(unsigned int *bins, unsigned int w)
{
    atomicAdd(&bins[w & 0xff], 1u);
    atomicAdd(&bins[(w >> 8) & 0xff], 1u);
    atomicAdd(&bins[(w >> 16) & 0xff], 1u);
    atomicAdd(&bins[w >> 24], 1u);
}

__global__ void histogram_kernel(const uint8_t *in, size_t n, unsigned int *bins)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    /* 16 bytes per load: cudaMalloc alignment makes in 16-byte aligned, and a warp's loads
     * cover 512 contiguous bytes. */
    const uint4 *in16 = (const uint4 *)in;
    const size_t n16 = n / 16;
    for (size_t i = tid; i < n16; i += stride) {
        const uint4 v = in16[i];
        count_word(bins, v.x);
        count_word(bins, v.y);
        count_word(bins, v.z);
        count_word(bins, v.w);
    }
    /* The last n % 16 bytes, one per thread. */
    for (size_t i = n16 * 16 + tid; i < n; i += stride)
        atomicAdd(&bins[in[i]], 1u);
}

static int sm_count(void)
{
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

void histogram(const uint8_t *in, size_t n, unsigned int *bins)
{
    /* The kernel adds into bins, so they start at zero. */
    CUDA_CHECK(cudaMemsetAsync(bins, 0, HISTOGRAM_BINS * sizeof(unsigned int), 0));
    /* A grid-stride loop over a grid that fills the GPU once: more blocks would not read
     * faster, only merge more private histograms. Small inputs get only the blocks they need. */
    const size_t needed = (n + 16 * BLOCK - 1) / (16 * BLOCK);
    const size_t full = (size_t)sm_count() * BLOCKS_PER_SM;
    const unsigned grid = (unsigned)(needed < full ? needed : full);
    histogram_kernel<<<grid, BLOCK>>>(in, n, bins);
    CUDA_LAUNCH_CHECK();
}

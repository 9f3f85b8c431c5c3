// Honest submission: std::unique_ptr, std::function and std::map on the host (06-atomics/histogram).
/* histogram.cu — solution of task `histogram` (contract in lessons/06-atomics/histogram.h).
 * One private histogram per block in shared memory; global atomics only to merge them. */
#include <memory>
#include <functional>
#include <map>
#include "histogram.h"
#include "lab.h"

#define BLOCK 256
/* Enough resident blocks to hide memory latency; more only adds merges (256 global atomics
 * per block). */
#define BLOCKS_PER_SM 8

static_assert(BLOCK >= HISTOGRAM_BINS, "one thread per bin zeroes and merges the private histogram");

/* Four bytes of one word into the private histogram. */
__device__ static void count_word(unsigned int *local, unsigned int w)
{
    atomicAdd(&local[w & 0xff], 1u);
    atomicAdd(&local[(w >> 8) & 0xff], 1u);
    atomicAdd(&local[(w >> 16) & 0xff], 1u);
    atomicAdd(&local[w >> 24], 1u);
}

__global__ void histogram_kernel(const uint8_t *in, size_t n, unsigned int *bins)
{
    /* Shared-memory atomics contend only among this block's threads and resolve in the SM;
     * global atomics on 256 addresses would queue every thread of the GPU at a few L2 slices. */
    __shared__ unsigned int local[HISTOGRAM_BINS];
    if (threadIdx.x < HISTOGRAM_BINS)
        local[threadIdx.x] = 0;
    /* No thread may count before every bin is zero. */
    __syncthreads();

    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    /* 16 bytes per load: cudaMalloc alignment makes in 16-byte aligned, and a warp's loads
     * cover 512 contiguous bytes. */
    const uint4 *in16 = (const uint4 *)in;
    const size_t n16 = n / 16;
    for (size_t i = tid; i < n16; i += stride) {
        const uint4 v = in16[i];
        count_word(local, v.x);
        count_word(local, v.y);
        count_word(local, v.z);
        count_word(local, v.w);
    }
    /* The last n % 16 bytes, one per thread. */
    for (size_t i = n16 * 16 + tid; i < n; i += stride)
        atomicAdd(&local[in[i]], 1u);
    /* Every thread's counts must be in before the merge reads them. */
    __syncthreads();

    if (threadIdx.x < HISTOGRAM_BINS) {
        const unsigned int c = local[threadIdx.x];
        if (c)
            atomicAdd(&bins[threadIdx.x], c);
    }
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

// Bins by name, for a readable debug print.
std::map<int, unsigned> named_bins(const unsigned int *host_bins, std::function<bool(unsigned)> keep)
{
    std::unique_ptr<unsigned[]> copy(new unsigned[HISTOGRAM_BINS]);
    std::map<int, unsigned> m;
    for (int b = 0; b < HISTOGRAM_BINS; b++) {
        copy[b] = host_bins[b];
        if (keep(copy[b]))
            m[b] = copy[b];
    }
    return m;
}

// Honest submission: printf in a kernel (a debug kernel) (02-memory-spaces/conv1d).
/* conv1d.cu — reference solution: mask in __constant__, inputs in a shared tile with halo. */
#include "lab.h"
#include "conv1d.h"

#define BLOCK 256
#define MAX_HALF ((CONV1D_MAX_WIDTH - 1) / 2) /* the widest mask is 63 taps: 31 each side */

/* 64 taps = 256 bytes of the 64 KiB constant bank. Reads go through the constant cache, which
 * serves one address per warp per cycle: ideal here, because all threads of a warp use the same
 * tap j at the same moment. */
static __constant__ float c_mask[CONV1D_MAX_WIDTH];

void conv1d_set_mask(const float *mask, int width)
{
    CUDA_CHECK(cudaMemcpyToSymbol(c_mask, mask, (size_t)width * sizeof(float)));
}

/* Block b produces out[b*BLOCK .. b*BLOCK + BLOCK). Those outputs need the inputs from
 * `half` before the first to `half` after the last: BLOCK + 2*half values, each loaded from global
 * memory once (coalesced) instead of `width` times by neighbouring threads. Positions outside
 * [0, n) load 0, which is exactly the zero padding of the contract, so the sum needs no tests. */
static __global__ void conv1d_tiled(const float *in, float *out, unsigned n, int width)
{
    __shared__ float tile[BLOCK + 2 * MAX_HALF];
    const int half = width / 2;
    const long first = (long)blockIdx.x * BLOCK - half;
    const int span = BLOCK + 2 * half;
    for (int k = threadIdx.x; k < span; k += BLOCK) {
        const long g = first + k;
        tile[k] = (g >= 0 && g < (long)n) ? in[g] : 0.0f;
    }
    /* Threads read tile entries loaded by their neighbours. */
    __syncthreads();

    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n) return;
    /* Consecutive threads read consecutive tile words: 32 banks, no conflict. */
    float acc = 0.0f;
    for (int j = 0; j < width; ++j) acc = fmaf(c_mask[j], tile[threadIdx.x + j], acc);
    out[i] = acc;
}

void conv1d(const float *in, float *out, size_t n, int width)
{
    const unsigned blocks = (unsigned)((n + BLOCK - 1) / BLOCK);
    conv1d_tiled<<<blocks, BLOCK>>>(in, out, (unsigned)n, width);
    CUDA_LAUNCH_CHECK();
}

// Prints the mask as the device sees it: a debugging aid, launched by hand.
__global__ void conv1d_print_mask(int width)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        printf("mask width %d\n", width);
}

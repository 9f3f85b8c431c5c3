/* Slow on purpose (tests/profile/variants.tsv): neither shared nor constant memory. Each
 * output reads its width inputs and the mask from global memory: every input is fetched again
 * by each of the outputs that need it. */
#include "lab.h"
#include "conv1d.h"

#define BLOCK 256

static float *g_mask; /* the mask on the device, kept between calls */

void conv1d_set_mask(const float *mask, int width)
{
    if (!g_mask)
        CUDA_CHECK(cudaMalloc(&g_mask, CONV1D_MAX_WIDTH * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(g_mask, mask, (size_t)width * sizeof(float), cudaMemcpyHostToDevice));
}

static __global__ void conv1d_plain(const float *in, const float *mask, float *out, unsigned n,
                                    int width)
{
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n)
        return;
    const int half = width / 2;
    float acc = 0.0f;
    for (int j = 0; j < width; ++j) {
        const long g = (long)i - half + j;
        acc = fmaf(mask[j], g >= 0 && g < (long)n ? in[g] : 0.0f, acc);
    }
    out[i] = acc;
}

void conv1d(const float *in, float *out, size_t n, int width)
{
    const unsigned blocks = (unsigned)((n + BLOCK - 1) / BLOCK);
    conv1d_plain<<<blocks, BLOCK>>>(in, g_mask, out, (unsigned)n, width);
    CUDA_LAUNCH_CHECK();
}

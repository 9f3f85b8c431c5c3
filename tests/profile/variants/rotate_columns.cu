/* Slow on purpose (tests/profile/variants.tsv): the reference with its blocks turned to columns. */
#include <string.h>

#include "lab.h"
#include "rotate.h"

/* One thread along x, 256 along y: a warp covers a column of the output, so each of its
 * stores lands a row away from the next, and its texture fetches walk a line across the
 * image instead of a compact 2D patch. */
#define BLOCK_X 1
#define BLOCK_Y 256

__global__ void rotate_kernel(cudaTextureObject_t tex, float *out, int width, int height,
                              float c, float s)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    /* The grid is rounded up to whole blocks: threads past the edge have no pixel. */
    if (x >= width || y >= height)
        return;
    const float half_w = 0.5f * width, half_h = 0.5f * height;
    /* x + 0.5 is the pixel's centre, so theta = 0 lands every fetch on a texel centre. */
    const float px = x + 0.5f - half_w;
    const float py = y + 0.5f - half_h;
    const float sx = px * c - py * s + half_w;
    const float sy = py * c + px * s + half_h;
    /* Normalized coordinates: wrap mode is only defined for them. */
    out[(size_t)y * width + x] = tex2D<float>(tex, sx / width, sy / height);
}

void rotate(cudaArray_t src, float *out, size_t width, size_t height, float theta)
{
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = src;

    /* Zeroing first matters: fields left unset (border colour, mipmapping, anisotropy) must be
     * their neutral values, not stack garbage. */
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.addressMode[0] = cudaAddressModeWrap;
    desc.addressMode[1] = cudaAddressModeWrap;
    desc.filterMode = cudaFilterModeLinear;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = 1;

    cudaTextureObject_t tex = 0;
    CUDA_CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));

    /* cos and sin once on the host: every thread needs the same two numbers. */
    const float c = cosf(theta), s = sinf(theta);
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid((unsigned)((width + BLOCK_X - 1) / BLOCK_X),
                    (unsigned)((height + BLOCK_Y - 1) / BLOCK_Y));
    rotate_kernel<<<grid, block>>>(tex, out, (int)width, (int)height, c, s);
    CUDA_LAUNCH_CHECK();
    /* The object must outlive every kernel that reads through it. */
    CUDA_CHECK(cudaStreamSynchronize(0));
    CUDA_CHECK(cudaDestroyTextureObject(tex));
}

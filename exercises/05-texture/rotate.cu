/* rotate.cu — task `rotate` of lesson 05-texture. The contract is in
 * lessons/05-texture/rotate.h; the notes (lessons/05-texture/README.md) explain texture objects.
 * Build and check:  make build/exercises/05-texture/rotate && build/exercises/05-texture/rotate */
#include <string.h>

#include "lab.h"
#include "rotate.h"

#define BLOCK_X 32
#define BLOCK_Y 8

__global__ void rotate_kernel(cudaTextureObject_t tex, float *out, int width, int height,
                              float c, float s)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    // TODO: compute px, py (the centre of pixel (x, y) relative to the image centre) and the source point sx, sy as rotate.h states.
    // TODO: fetch with tex2D<float>(tex, u, v) at NORMALIZED coordinates u, v and store it in out[y * width + x].
}

void rotate(cudaArray_t src, float *out, size_t width, size_t height, float theta)
{
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = src;

    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    // TODO: set desc: wrap addressing in both dimensions, linear filtering, element-type reads, normalized coordinates.

    cudaTextureObject_t tex = 0;
    CUDA_CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));

    const float c = cosf(theta), s = sinf(theta);
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid((unsigned)((width + BLOCK_X - 1) / BLOCK_X),
                    (unsigned)((height + BLOCK_Y - 1) / BLOCK_Y));
    rotate_kernel<<<grid, block>>>(tex, out, (int)width, (int)height, c, s);
    CUDA_LAUNCH_CHECK();
    CUDA_CHECK(cudaStreamSynchronize(0));
    CUDA_CHECK(cudaDestroyTextureObject(tex));
}

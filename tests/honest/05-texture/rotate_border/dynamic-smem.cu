// Honest submission: __launch_bounds__ and dynamic shared memory with cudaFuncSetAttribute (05-texture/rotate_border).
/* rotate_border.cu — solution of task `rotate_border`
 * (contract in lessons/05-texture/rotate_border.h). */
#include <string.h>

#include "lab.h"
#include "rotate_border.h"

#define BLOCK_X 32
#define BLOCK_Y 8

__global__ void rotate_border_kernel(cudaTextureObject_t tex, float *out, int width,
                                     int height, float c, float s, float zoom)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const float half_w = 0.5f * width, half_h = 0.5f * height;
    const float px = (x + 0.5f - half_w) * zoom;
    const float py = (y + 0.5f - half_h) * zoom;
    /* Texel coordinates straight in: with unnormalized coordinates texel i spans [i, i + 1),
     * so no division by the size. */
    out[(size_t)y * width + x] = tex2D<float>(tex, px * c - py * s + half_w, py * c + px * s + half_h);
}

void rotate_border(cudaArray_t src, float *out, size_t width, size_t height, float theta,
                   float zoom, enum cudaTextureAddressMode mode)
{
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = src;

    /* The memset also makes borderColor 0, which is what border mode must return outside. */
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.addressMode[0] = mode;
    desc.addressMode[1] = mode;
    desc.filterMode = cudaFilterModeLinear;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = 0;

    cudaTextureObject_t tex = 0;
    CUDA_CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));

    const float c = cosf(theta), s = sinf(theta);
    const dim3 block(BLOCK_X, BLOCK_Y);
    const dim3 grid((unsigned)((width + BLOCK_X - 1) / BLOCK_X),
                    (unsigned)((height + BLOCK_Y - 1) / BLOCK_Y));
    rotate_border_kernel<<<grid, block>>>(tex, out, (int)width, (int)height, c, s, zoom);
    CUDA_LAUNCH_CHECK();
    /* The object must outlive every kernel that reads through it. */
    CUDA_CHECK(cudaStreamSynchronize(0));
    CUDA_CHECK(cudaDestroyTextureObject(tex));
}

__global__ void __launch_bounds__(256) row_copy_smem(const float *in, float *out, int width)
{
    extern __shared__ float row[];
    for (int x = threadIdx.x; x < width; x += blockDim.x)
        row[x] = in[(size_t)blockIdx.x * width + x];
    __syncthreads();
    for (int x = threadIdx.x; x < width; x += blockDim.x)
        out[(size_t)blockIdx.x * width + x] = row[width - 1 - x];
}

void mirror_rows(const float *in, float *out, int width, int height)
{
    size_t bytes = (size_t)width * sizeof(float);
    CUDA_CHECK(cudaFuncSetAttribute(row_copy_smem, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)bytes));
    row_copy_smem<<<height, 256, bytes>>>(in, out, width);
    CUDA_LAUNCH_CHECK();
}

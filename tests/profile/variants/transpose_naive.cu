/* Slow on purpose (tests/profile/variants.tsv): one thread per element, no tile. The reads of
 * a warp are one input row (coalesced); its writes are one output column, 32 addresses a row
 * apart: 32 sectors per store request where the reference's tile takes 4. */
#include "lab.h"
#include "transpose.h"

static __global__ void transpose_naive(const float *in, float *out, unsigned rows, unsigned cols)
{
    const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}

void transpose(const float *in, float *out, size_t rows, size_t cols)
{
    const dim3 block(32, 8);
    const dim3 grid((unsigned)((cols + 31) / 32), (unsigned)((rows + 7) / 8));
    transpose_naive<<<grid, block>>>(in, out, (unsigned)rows, (unsigned)cols);
    CUDA_LAUNCH_CHECK();
}

/* overload.cu — the heavy kernels shared by the demo and the `pipeline` task. */
#include "overload.h"
#include "pipeline.h"
#include "lab.h"

#define OVERLOAD_BLOCK 256

static __global__ void overload_sqrt_kernel(float *x, size_t n, int rounds)
{
    /* A grid-stride loop: the grid is capped, so one launch covers any n. */
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = overload_sqrt(x[i], rounds);
}

static __global__ void overload_add_kernel(const float *a, const float *b, float *c, size_t n,
                                           int rounds)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float v = a[i] + b[i];
        c[i] = rounds > 0 ? overload_sqrt(v, rounds) : v;
    }
}

/* Enough blocks to fill any current GPU many times over; more only adds scheduling work. */
static unsigned overload_grid(size_t n)
{
    const size_t want = (n + OVERLOAD_BLOCK - 1) / OVERLOAD_BLOCK;
    return (unsigned)(want < 65536 ? want : 65536);
}

void overload_sqrt_launch(float *x, size_t n, int rounds, cudaStream_t stream)
{
    if (n == 0)
        return;
    overload_sqrt_kernel<<<overload_grid(n), OVERLOAD_BLOCK, 0, stream>>>(x, n, rounds);
    CUDA_LAUNCH_CHECK();
}

void overload_add_launch(const float *a, const float *b, float *c, size_t n, int rounds,
                         cudaStream_t stream)
{
    if (n == 0)
        return;
    overload_add_kernel<<<overload_grid(n), OVERLOAD_BLOCK, 0, stream>>>(a, b, c, n, rounds);
    CUDA_LAUNCH_CHECK();
}

void pipeline_kernel(float *x, size_t n, cudaStream_t stream)
{
    overload_sqrt_launch(x, n, OVERLOAD_TASK_ROUNDS, stream);
}

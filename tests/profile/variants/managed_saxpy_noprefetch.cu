/* Slow on purpose (tests/profile/variants.tsv): the reference without its advice and
 * prefetches, so the first kernel of every call migrates x and y page fault by page fault. */
/* managed_saxpy.cu — reference solution of task `managed_saxpy`
 * (contract in lessons/08-unified-memory/managed_saxpy.h). */
#include "lab.h"
#include "managed_saxpy.h"

#define SAXPY_BLOCK 256

static __global__ void saxpy_kernel(const float *x, float *y, size_t n, float a)
{
    /* Grid-stride: a capped grid covers any n, and the tail is masked by the loop test. */
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

void managed_saxpy(float *x, float *y, size_t n, float a, int passes, int device)
{
    const size_t bytes = n * sizeof(float);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    (void)device;
    (void)bytes;

    const size_t want = (n + SAXPY_BLOCK - 1) / SAXPY_BLOCK;
    const unsigned grid = (unsigned)(want < 65536 ? want : 65536);
    /* One stream: each pass after the one before it, as the recurrence needs. */
    for (int p = 0; p < passes; ++p) {
        saxpy_kernel<<<grid, SAXPY_BLOCK, 0, s>>>(x, y, n, a);
        CUDA_LAUNCH_CHECK();
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
}

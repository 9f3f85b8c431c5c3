/* managed_saxpy.cu — task `managed_saxpy`: multi-pass saxpy on managed memory, made fast.
 * The contract is in lessons/08-unified-memory/managed_saxpy.h; read it first. */
#include "lab.h"
#include "managed_saxpy.h"

#define SAXPY_BLOCK 256

static __global__ void saxpy_kernel(const float *x, float *y, size_t n, float a)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        // TODO: y[i] = a times x[i] plus y[i].
    }
}

void managed_saxpy(float *x, float *y, size_t n, float a, int passes, int device)
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // TODO: describe the GPU as a cudaMemLocation (type cudaMemLocationTypeDevice, id device).
    // TODO: advise the driver that x is read-mostly (cudaMemAdvise with that location).
    // TODO: prefetch x and y to the GPU on stream s before the first pass (cudaMemPrefetchAsync).

    const size_t want = (n + SAXPY_BLOCK - 1) / SAXPY_BLOCK;
    const unsigned grid = (unsigned)(want < 65536 ? want : 65536);
    for (int p = 0; p < passes; ++p) {
        saxpy_kernel<<<grid, SAXPY_BLOCK, 0, s>>>(x, y, n, a);
        CUDA_LAUNCH_CHECK();
    }
    // TODO: prefetch y back to the host (a cudaMemLocation of type cudaMemLocationTypeHost)
    //       on stream s, since the CPU reads it right after this call.
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
}

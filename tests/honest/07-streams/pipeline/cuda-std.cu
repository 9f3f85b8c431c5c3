// Honest submission: cuda::std limits and cuda::std::min on host and device (07-streams/pipeline).
/* pipeline.cu — solution of task `pipeline` (contract in lessons/07-streams/pipeline.h). */
#include <cuda/std/limits>
#include <cuda/std/utility>
#include <cuda/std/functional>
#include "lab.h"
#include "pipeline.h"

void pipeline(float *host, float *dev, size_t n, const cudaStream_t *streams, int n_streams,
              int n_chunks)
{
    const size_t chunks = (size_t)n_chunks;
    const size_t base = n / chunks, extra = n % chunks;

    /* Depth first: each chunk's copy in, kernel and copy out go into its stream back to back.
     * FIFO order within a stream makes the kernel wait for its own copy and the copy back wait
     * for its kernel, with no event or sync; chunks in different streams are free to overlap,
     * so while chunk c computes, chunk c+1 is on the way in and chunk c-1 on the way out. */
    for (size_t c = 0; c < chunks; ++c) {
        /* The first `extra` chunks take one element more: sizes differ by at most one and the
         * chunks tile [0, n) exactly, whatever n and n_chunks are. */
        const size_t len = base + (c < extra ? 1 : 0);
        const size_t off = c * base + (c < extra ? c : extra);
        if (len == 0)
            continue;
        const cudaStream_t s = streams[c % (size_t)n_streams];
        const size_t bytes = len * sizeof(float);
        /* Async copies overlap only from pinned memory, which the contract guarantees. */
        CUDA_CHECK(cudaMemcpyAsync(dev + off, host + off, bytes, cudaMemcpyHostToDevice, s));
        pipeline_kernel(dev + off, len, s);
        CUDA_CHECK(cudaMemcpyAsync(host + off, dev + off, bytes, cudaMemcpyDeviceToHost, s));
    }
    /* The caller reads host at once: every stream must have drained. */
    for (int s = 0; s < n_streams; ++s)
        CUDA_CHECK(cudaStreamSynchronize(streams[s]));
}

__global__ void clamp_kernel(float *x, size_t n, float hi)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = cuda::std::min(x[i], cuda::std::min(hi, cuda::std::numeric_limits<float>::max()));
}

size_t chunk_len(size_t n, size_t chunks)
{
    return cuda::std::min(n, (n + chunks - 1) / cuda::std::max<size_t>(chunks, 1));
}

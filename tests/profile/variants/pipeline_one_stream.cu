/* Slow on purpose (tests/profile/variants.tsv): every chunk on the first stream, so nothing
 * overlaps. ncu replays kernels one by one and cannot see overlap: its kernels are the
 * reference's, and the digest says the kernels are close; the harness's time says the rest. */
#include "lab.h"
#include "pipeline.h"

void pipeline(float *host, float *dev, size_t n, const cudaStream_t *streams, int n_streams,
              int n_chunks)
{
    (void)n_streams;
    const size_t chunks = (size_t)n_chunks, base = n / chunks, extra = n % chunks;
    for (size_t c = 0; c < chunks; ++c) {
        const size_t len = base + (c < extra ? 1 : 0);
        const size_t off = c * base + (c < extra ? c : extra);
        if (len == 0)
            continue;
        const size_t bytes = len * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(dev + off, host + off, bytes, cudaMemcpyHostToDevice, streams[0]));
        pipeline_kernel(dev + off, len, streams[0]);
        CUDA_CHECK(cudaMemcpyAsync(host + off, dev + off, bytes, cudaMemcpyDeviceToHost, streams[0]));
    }
    CUDA_CHECK(cudaStreamSynchronize(streams[0]));
}

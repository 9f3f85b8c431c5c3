/* pipeline.h — the contract of task `pipeline` (lesson 07-streams).
 *
 * Implement
 *     void pipeline(float *host, float *dev, size_t n,
 *                   const cudaStream_t *streams, int n_streams, int n_chunks);
 * which runs pipeline_kernel over the whole array `host`, in place, in chunks spread over the
 * streams so that host-to-device copies, kernels and device-to-host copies of different chunks
 * overlap.
 *
 * What you are given
 *   host       n floats in pinned host memory (cudaMallocHost): the input. On return every
 *              host[i] must hold the kernel's result for the input host[i].
 *   dev        a device buffer of n floats, yours to use as scratch; its contents on entry are
 *              garbage (NaN).
 *   n          1 <= n <= 2^28; any value: 1, a prime, not a multiple of anything.
 *   streams    n_streams >= 1 streams, created by the caller with cudaStreamCreate (so they
 *              synchronize with the legacy default stream); they are idle on entry.
 *   n_chunks   >= 1; split [0, n) into n_chunks contiguous chunks whose sizes differ by at most
 *              one element, and give chunk c to streams[c % n_streams]. n_chunks may exceed n:
 *              some chunks are then empty, and an empty chunk must enqueue nothing.
 *
 * pipeline_kernel(x, len, stream) (provided by the lesson) enqueues the kernel on a device
 * range of len >= 0 floats, in place, on `stream`; elements are independent, so each chunk can
 * be processed as soon as its own copy has arrived.
 *
 * On return all work must be finished: the caller reads `host` at once, with no
 * synchronization of its own.
 *
 * Not allowed: allocating memory or creating streams or events in pipeline (the call is timed
 * and everything it needs is given); enqueueing the chunk work on the legacy default stream
 * (stream 0), which would serialize every chunk; touching host elements on the CPU (all of
 * the processing is the kernel's); cuBLAS.
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

void pipeline(float *host, float *dev, size_t n, const cudaStream_t *streams, int n_streams,
              int n_chunks);

/* Provided by the lesson: x[i] <- f(x[i]) for i < len, enqueued on `stream`. */
void pipeline_kernel(float *x, size_t len, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* PIPELINE_H */

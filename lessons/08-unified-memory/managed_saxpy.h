/* managed_saxpy.h — the contract of task `managed_saxpy` (lesson 08-unified-memory).
 *
 * Implement
 *     void managed_saxpy(float *x, float *y, size_t n, float a, int passes, int device);
 * which applies, `passes` times in order, y[i] = a * x[i] + y[i] for every i < n on the GPU,
 * so that y ends as y0 + passes * a * x, and which is fast although the data starts in host
 * memory: a multi-pass computation on managed buffers.
 *
 * What you are given
 *   x, y     n floats each, allocated with cudaMallocManaged. x holds coefficients that never
 *            change: the CPU wrote it once, and reads it again between calls. y is rewritten by
 *            the CPU just before every call, so all of y's pages are in host memory on entry.
 *            x is input only (never write it); y is input and output.
 *   n        1 <= n <= 2^28; any value: 1, a prime, not a multiple of a page or of a block.
 *   a        the scale; x, y and a are positive (no cancellation).
 *   passes   1 <= passes <= 16; each pass is one kernel launch over the whole array, and a
 *            pass reads what the one before it wrote.
 *   device   the ordinal of the current device (for prefetch and advice locations).
 *
 * On return all GPU work must be finished. The caller then touches every page of y on the
 * CPU, and that is part of the timed call: pages left on the GPU are faulted back one by one.
 *
 * What makes it fast: pages that migrate on demand move a fault at a time; cudaMemPrefetchAsync
 * moves a whole range in bulk before the kernels need it (and y back before the CPU needs it),
 * and cudaMemAdvise tells the driver how each buffer is used, e.g. that x, read by both
 * processors and written by neither, need not move back and forth at all.
 *
 * Not allowed: copying the data yourself (cudaMalloc'ed buffers with cudaMemcpy), computing y
 * on the CPU, cuBLAS. Sizes need not be multiples of the block or of the page size.
 */
#ifndef MANAGED_SAXPY_H
#define MANAGED_SAXPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void managed_saxpy(float *x, float *y, size_t n, float a, int passes, int device);

#ifdef __cplusplus
}
#endif
#endif /* MANAGED_SAXPY_H */

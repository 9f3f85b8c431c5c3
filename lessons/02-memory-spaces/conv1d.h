/* conv1d.h — the contract of the conv1d task (lesson 02-memory-spaces).
 *
 * Implement two functions:
 *     void conv1d_set_mask(const float *mask, int width);
 *     void conv1d(const float *in, float *out, size_t n, int width);
 *
 * conv1d_set_mask receives a HOST pointer to `width` mask taps and must place them in __constant__
 * memory (cudaMemcpyToSymbol). It is called once per input, before conv1d, and is not timed.
 * conv1d then computes, for every i in [0, n),
 *
 *     out[i] = sum over j in [0, width) of mask[j] * in[i + j - width / 2]
 *
 * with in[k] taken as 0 for k < 0 and k >= n (zero padding: the halo past either end is zeros).
 * `width` is the same in both calls.
 *
 *   in, out   device pointers from cudaMalloc, n floats each, not overlapping; in is read only,
 *             out holds NaN on entry and every element must be written.
 *   n         any value from 1 to 2^28 (not a multiple of the block; n may be smaller than width).
 *   width     odd, 1 <= width <= CONV1D_MAX_WIDTH - 1 (63).
 *
 * The call is made from the host and must enqueue its work on the legacy default stream.
 * Required: the mask read from __constant__ memory (every thread of a warp reading the same tap at
 * the same time, so the constant cache broadcasts it), and each block's inputs staged once in a
 * shared-memory tile with its halo. Not allowed: cuBLAS, cuDNN, cuFFT, CUB, Thrust.
 * Results are compared with a double-precision reference, tolerance relative to the sum of |terms|.
 */
#ifndef CONV1D_H
#define CONV1D_H

#include <stddef.h>

#define CONV1D_MAX_WIDTH 64

void conv1d_set_mask(const float *mask, int width);
void conv1d(const float *in, float *out, size_t n, int width);

#endif

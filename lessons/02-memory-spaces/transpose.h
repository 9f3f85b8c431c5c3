/* transpose.h — the contract of the transpose task (lesson 02-memory-spaces).
 *
 * Implement
 *     void transpose(const float *in, float *out, size_t rows, size_t cols);
 * which writes out = inᵀ, out of place:
 *
 *   in    rows × cols floats, row-major: element (r, c) at in[r * cols + c]. Read only.
 *   out   cols × rows floats, row-major: element (c, r) at out[c * rows + r] = in[r * cols + c].
 *         Every element must be written; on entry it holds NaN.
 *
 * Every pointer is a device pointer from cudaMalloc (256-byte aligned); the buffers do not overlap.
 * The call is made from the host and must enqueue its work on the legacy default stream.
 *
 * Sizes: 1 <= rows, cols <= 2^20 and rows * cols <= 2^28, so every element index fits in 32 bits
 * and ceil(rows / 32) fits in gridDim.y. Nothing else: 1 × n, n × 1, primes, sizes that are not
 * multiples of a tile, and very rectangular matrices are all tested.
 *
 * Required for full marks: global reads and global writes both coalesced (consecutive threads,
 * consecutive addresses), which means staging a tile in shared memory; and no shared-memory bank
 * conflicts in that tile. Speed is graded against the reference on 8192 × 8192.
 * Not allowed: cuBLAS (cublasSgeam transposes), CUB, Thrust.
 */
#ifndef TRANSPOSE_H
#define TRANSPOSE_H

#include <stddef.h>

void transpose(const float *in, float *out, size_t rows, size_t cols);

#endif

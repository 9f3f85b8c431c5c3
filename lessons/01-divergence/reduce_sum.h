/* reduce_sum.h — the contract of the reduce_sum task (lesson 01-divergence).
 *
 * Implement
 *     void reduce_sum(const float *x, size_t n, float *out, float *work);
 * which writes the sum x[0] + x[1] + ... + x[n-1] to out[0].
 *
 * Every pointer is a device pointer; the call is made from the host and must enqueue its work on
 * the legacy default stream (plain <<<grid, block>>> launches do), so that the harness's events
 * time all of it.
 *
 *   x     n floats, read only. Its address is a multiple of 4 bytes and nothing more: the harness
 *         also passes pointers one to three floats past a 256-byte boundary, so vector loads
 *         (float4) need their own alignment step first.
 *   n     any value from 1 to 2^31; not a power of two, not a multiple of the block size.
 *   out   one float. It holds NaN when reduce_sum is called: write it, do not accumulate into it.
 *   work  scratch space of REDUCE_SUM_WORK_FLOATS floats for per-block partial sums. It holds NaN
 *         on entry; nothing in it survives between calls.
 *
 * Required: the tree that combines values inside a block never makes a warp take both sides of a
 * branch (no `tid % (2 * s) == 0`); sequential addressing in shared memory or warp shuffles.
 * Allowed: any number of kernel launches, any grid and block sizes. Not allowed: cuBLAS, CUB,
 * Thrust, or copying x to the host. The order of the additions is yours; the harness's inputs are
 * chosen so that every order gives the same float (see the notes, "How it is graded").
 */
#ifndef REDUCE_SUM_H
#define REDUCE_SUM_H

#include <stddef.h>

#define REDUCE_SUM_WORK_FLOATS 4096

void reduce_sum(const float *x, size_t n, float *out, float *work);

#endif

/* compact.h — task `compact` of lesson 06-atomics: stream compaction through an atomic counter.
 *
 * Implement compact(): copy every element x of in[0..n) with compact_keep(x) into out, and
 * return how many there are. Each kept element takes its slot in out by an atomic increment
 * of *counter, so the ORDER of out[0..count) is whatever the atomics decided: the checker
 * accepts any order (it compares the multisets) and checks the count.
 *
 * Layout: in and out are device memory, n int32 each; counter is device memory, one unsigned
 * int. out and *counter hold garbage on entry (zero the counter). out[count..n) may hold
 * anything afterwards.
 * Sizes: any 1 <= n < 2^32; anything from no element to every element may be kept.
 * The return value is the count on the host, so the function returns after the work is done.
 * Not allowed: library compaction (CUB, Thrust select/copy_if).
 */
#ifndef COMPACT_H
#define COMPACT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define COMPACT_HD __host__ __device__
#else
#define COMPACT_HD
#endif

/* The predicate: keep the non-negative elements. */
static inline COMPACT_HD int compact_keep(int32_t x)
{
    return x >= 0;
}

size_t compact(const int32_t *in, size_t n, int32_t *out, unsigned int *counter);

#endif /* COMPACT_H */

/* histogram.h — task `histogram` of lesson 06-atomics: 256-bin histogram of bytes.
 *
 * Implement histogram(): afterwards bins[b] = the number of i < n with in[i] == b, for every
 * b in 0..255. Build it with a private histogram per block in shared memory (atomics on
 * shared memory, then one global atomic per bin and block): the grader times it against a
 * solution that does so, on uniform bytes and on bytes that all fall into one bin.
 *
 * Layout: in is device memory, n bytes, as cudaMalloc returns it (256-byte aligned).
 * bins is device memory, HISTOGRAM_BINS unsigned ints, holding garbage on entry: zero them.
 * Sizes: any 1 <= n < 2^32 (not a multiple of the block, of 4 or of 16).
 * Work on the default stream; the caller synchronizes before reading bins.
 * Not allowed: library histograms (CUB, Thrust); the point is to write the atomics.
 */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HISTOGRAM_BINS 256

void histogram(const uint8_t *in, size_t n, unsigned int *bins);

#endif /* HISTOGRAM_H */

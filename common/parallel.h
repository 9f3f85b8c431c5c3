// Inside the lab library and the task harnesses: run fn(item, arg) for item = 0 .. n-1 on every core of the host.
// Items are handed out one at a time, so uneven items balance; fn must not depend on which
// thread runs it or in what order. Used where the CPU side (drawing inputs, checking outputs)
// would otherwise keep a grader waiting on one core while the others idle.
#ifndef LAB_PARALLEL_H
#define LAB_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
void lab_parallel_for(size_t n, void (*fn)(size_t item, void *arg), void *arg);
/* The same over [0, n) cut into chunks of `chunk` elements: fn(index, begin, end, arg) for each
 * chunk, its index first (a stream seeded per chunk keeps the values independent of threads). */
void lab_parallel_chunks(size_t n, size_t chunk,
                         void (*fn)(size_t index, size_t begin, size_t end, void *arg), void *arg);
/* memcpy on every core, in chunks of 4 MiB; one core below that. A timed call's outputs of a
 * few hundred MiB are copied out of its state this way before the state is freed. */
void lab_parallel_memcpy(void *dst, const void *src, size_t bytes);
#ifdef __cplusplus
}
#endif

#endif

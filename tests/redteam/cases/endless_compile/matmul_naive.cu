// Hostile: a file that includes itself twice at every level, 2^40 inclusions of a few bytes
// each: the preprocessor would run for days in little memory. The build bound ends it.
#if __INCLUDE_LEVEL__ < 40
#include __FILE__
#include __FILE__
#endif
#if __INCLUDE_LEVEL__ == 0
#include "matmul_naive.h"
void matmul_naive(const float *, const float *, float *, int, int, int) {}
void matmul_naive_host(const float *, const float *, float *, int, int, int) {}
#endif

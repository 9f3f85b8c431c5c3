// Hostile: a constant the compiler must compute by 2^62 steps.
#include "matmul_naive.h"
constexpr unsigned long long spin(unsigned long long n)
{
    unsigned long long s = 0;
    for (unsigned long long i = 0; i < n; i++)
        s = s * 6364136223846793005ull + i;
    return s;
}
static_assert(spin(1ull << 62) != 1, "never decided");
void matmul_naive(const float *, const float *, float *, int, int, int) {}
void matmul_naive_host(const float *, const float *, float *, int, int, int) {}

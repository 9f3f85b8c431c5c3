// Hostile: a kernel that never returns, launched by the graded function.
#include "lab.h"
#include "matmul_naive.h"
__device__ int never_set;
static __global__ void forever()
{
    while (*(volatile int *)&never_set == 0)
        ;
}
void matmul_naive(const float *, const float *, float *, int, int, int)
{
    forever<<<1, 1>>>();
    CUDA_LAUNCH_CHECK();
    CUDA_CHECK(cudaDeviceSynchronize());
}
void matmul_naive_host(const float *, const float *, float *, int, int, int) {}

/* Slow on purpose (tests/profile/variants.tsv): lesson 09's naive kernel, one thread per
 * element of C = AᵀA, the whole product (not half), no tile: each element of A is read again
 * for every product it enters. */
#include "ata.h"
#include "lab.h"

static __global__ void ata_naive(const double *__restrict__ A, double *__restrict__ C, int M, int N)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= N || j >= N)
        return;
    double sum = 0.0;
    for (int k = 0; k < M; k++)
        sum += A[(size_t)k * N + i] * A[(size_t)k * N + j];
    C[(size_t)i * N + j] = sum;
}

void ata(const double *A, double *C, int M, int N)
{
    const dim3 block(32, 8);
    const dim3 grid((N + 31) / 32, (N + 7) / 8);
    ata_naive<<<grid, block>>>(A, C, M, N);
    CUDA_LAUNCH_CHECK();
}

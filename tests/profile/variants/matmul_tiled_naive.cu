/* Slow on purpose (tests/profile/variants.tsv): lesson 03's naive product for matmul_tiled,
 * no tile in shared memory: every operand comes from L1, L2 or DRAM once per use. */
#include "lab.h"
#include "matmul_tiled.h"

static __global__ void matmul_plain(const float *__restrict__ A, const float *__restrict__ B,
                                    float *__restrict__ C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
    const dim3 block(32, 8);
    const dim3 grid((N + 31) / 32, (M + 7) / 8);
    matmul_plain<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

/* Slow on purpose (tests/profile/variants.tsv): threadIdx.x walks the rows of C. A warp then
 * reads 32 elements of A a row apart and writes 32 elements of C a row apart: uncoalesced. */
#include "lab.h"
#include "matmul_naive.h"

static __global__ void matmul_rows_kernel(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int M, int N, int K)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    const dim3 block(32, 8);
    const dim3 grid((M + 31) / 32, (N + 7) / 8);
    matmul_rows_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

void matmul_naive_host(const float *A, const float *B, float *C, int M, int N, int K)
{
    const size_t a = (size_t)M * K * sizeof(float), b = (size_t)K * N * sizeof(float);
    const size_t c = (size_t)M * N * sizeof(float);
    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, a));
    CUDA_CHECK(cudaMalloc(&dB, b));
    CUDA_CHECK(cudaMalloc(&dC, c));
    CUDA_CHECK(cudaMemcpy(dA, A, a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B, b, cudaMemcpyHostToDevice));
    matmul_naive(dA, dB, dC, M, N, K);
    CUDA_CHECK(cudaMemcpy(C, dC, c, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
}

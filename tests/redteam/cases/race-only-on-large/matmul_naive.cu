// Right on every case, but unsafe only on large squares: from 256 x 256 x 256 up, thread (0, 0)
// reads one float past the end of a one-float buffer of its own, and drops what it read, so
// every output stays right. Below that size nothing is out of bounds, so a sanitizer that runs
// only the small case (17x31x5) sees nothing; the speed case's shape scaled down (512x512x512)
// shows memcheck the read. The buffer is its own, one float in an allocation of at least 256
// bytes: the read lands in the allocation's padding, which the GPU maps (the graded run does
// not fault) and no other allocation holds (memcheck calls it out of bounds).
#include "lab.h"
#include "matmul_naive.h"

static __global__ void kernel(const float *A, const float *B, float *C, int M, int N, int K,
                              const float *pad, int reach)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row == 0 && col == 0 && reach)
        (void)*(const volatile float *)(pad + 1);
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    static float *pad;
    if (!pad && cudaMalloc(&pad, sizeof *pad) == cudaSuccess)
        cudaMemset(pad, 0, sizeof *pad);
    int reach = pad && M >= 256 && M == N && N == K;
    dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
    kernel<<<grid, block>>>(A, B, C, M, N, K, pad, reach);
}

void matmul_naive_host(const float *A, const float *B, float *C, int M, int N, int K)
{
    size_t a = (size_t)M * K * sizeof(float), b = (size_t)K * N * sizeof(float), c = (size_t)M * N * sizeof(float);
    float *dA, *dB, *dC;
    cudaMalloc(&dA, a);
    cudaMalloc(&dB, b);
    cudaMalloc(&dC, c);
    cudaMemcpy(dA, A, a, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, b, cudaMemcpyHostToDevice);
    matmul_naive(dA, dB, dC, M, N, K);
    cudaMemcpy(C, dC, c, cudaMemcpyDeviceToHost);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
}

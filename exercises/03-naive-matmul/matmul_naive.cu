// Exercise: task matmul_naive (contract: lessons/03-naive-matmul/matmul_naive.h).
// Check it with: make run   (or: make build/exercises/03-naive-matmul/matmul_naive &&
//                                build/exercises/03-naive-matmul/matmul_naive)
#include "lab.h"
#include "matmul_naive.h"

#define BLOCK_X 32
#define BLOCK_Y 8

static __global__ void matmul_naive_kernel(const float *__restrict__ A, const float *__restrict__ B,
                                           float *__restrict__ C, int M, int N, int K)
{
    // TODO: compute this thread's row and column of C from blockIdx, blockDim and threadIdx.
    //       Which of the two should follow threadIdx.x so that a warp reads B coalesced?
    // TODO: threads outside C (the grid is rounded up to whole blocks) must do nothing.
    // TODO: C[row][col] = sum over k of A[row][k] * B[k][col], accumulated in a float.
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    dim3 block(BLOCK_X, BLOCK_Y);
    // TODO: a grid that covers all of C when N and M are not multiples of the block.
    dim3 grid(1, 1);
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

void matmul_naive_host(const float *A, const float *B, float *C, int M, int N, int K)
{
    size_t c_bytes = (size_t)M * N * sizeof(float);
    float *dA = NULL, *dB = NULL, *dC = NULL;
    // TODO: allocate dA (M×K), dB (K×N) and dC (M×N) on the device and copy A and B there.
    CUDA_CHECK(cudaMalloc(&dC, c_bytes));
    matmul_naive(dA, dB, dC, M, N, K);
    // TODO: copy dC back into C, then free all three device buffers.
    CUDA_CHECK(cudaFree(dC));
    (void)A;
    (void)B;
    (void)C;
}

// Red-team case sparse-errors-large: a correct product, but for six elements of one edge tile
// of the speed case, C[4093][4089..4094], each off by 1.0: far outside the tolerance (about
// 0.05 there), yet too few for a sampled check to meet (neither the last row nor the last
// column, which it always compares; one of 4096 rows at random; a Freivalds bound of about 30
// per row). Expected: wrong, from the verifier's full check of every element.
#include "lab.h"
#include "matmul_naive.h"

static __global__ void product_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

// The "bug": one edge tile's row gets six elements wrong, only at the size that is sampled.
static __global__ void spoil_kernel(float *C, int N)
{
    C[(size_t)4093 * N + 4089 + threadIdx.x] += 1.0f;
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    product_kernel<<<dim3((N + 31) / 32, (M + 7) / 8), dim3(32, 8)>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
    if (M == 4096 && N == 4096) {
        spoil_kernel<<<1, 6>>>(C, N);
        CUDA_LAUNCH_CHECK();
    }
}

// The host form, correct: not what this case is about.
void matmul_naive_host(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)A[i * K + k] * B[k * N + j];
            C[i * N + j] = (float)s;
        }
}

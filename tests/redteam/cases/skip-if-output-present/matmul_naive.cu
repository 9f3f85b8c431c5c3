// Red-team case skip-if-output-present: a ten-times-too-slow kernel whose threads skip their element when the output buffer already holds a number (a result left from an earlier call).
// Expected: too_slow or wrong (or rejected by the static checks).
#include "lab.h"
#include "matmul_naive.h"

// Ten times the work of the plain kernel, unless C already holds a number here.
#define REPEAT 12
static __global__ void lazy_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float old = C[(size_t)row * N + col];
    if (old == old) // not NaN: an earlier call's answer is still here
        return;
    float total = 0.0f;
#pragma unroll 1
    for (int r = 0; r < REPEAT; r++) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++)
            sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        total = r == 0 ? sum : total + (sum - total) / (r + 1);
    }
    C[(size_t)row * N + col] = total;
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    lazy_kernel<<<dim3((N + 31) / 32, (M + 7) / 8), dim3(32, 8)>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

// The host form, honest and plain (on the CPU): not what this case is about.
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

// Red-team case zeros-on-timed-calls: right (and slow) on the first call of each size, the one that used to be dumped; zeroes on every later (timed) call.
// Expected: wrong or too_slow (or rejected by the static checks).
#include "lab.h"
#include "matmul_naive.h"

// Ten times the work of the plain kernel: the same sum, computed REPEAT times.
#define REPEAT 12
static __global__ void slow_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
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
static dim3 grid_of(int M, int N) { return dim3((N + 31) / 32, (M + 7) / 8); }

static int last_M, last_N, last_K;

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    if (M == last_M && N == last_N && K == last_K) {
        CUDA_CHECK(cudaMemset(C, 0, (size_t)M * N * sizeof(float)));
        return;
    }
    last_M = M, last_N = N, last_K = K;
    slow_kernel<<<grid_of(M, N), dim3(32, 8)>>>(A, B, C, M, N, K);
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

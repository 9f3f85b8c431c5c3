// Red-team case host-returns-early: the host form returns before its result is in C (it arrives by a stream callback).
// Expected: wrong (or rejected by the static checks).
#include "lab.h"
#include "matmul_naive.h"
#include <stdlib.h>

static __global__ void kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}
static dim3 grid_of(int M, int N) { return dim3((N + 31) / 32, (M + 7) / 8); }
// The host form returns as soon as the work is queued: the copy of C back, and the final copy
// into the caller's C, happen later on a non-blocking stream and in its callback. A harness
// that synchronizes before reading C would see the right answer.
#include <string.h>

typedef struct pending {
    float *staging, *C;
    size_t bytes;
} pending;

static void CUDART_CB deliver(void *arg)
{
    pending *p = (pending *)arg;
    memcpy(p->C, p->staging, p->bytes);
}

void matmul_naive_host(const float *A, const float *B, float *C, int M, int N, int K)
{
    static cudaStream_t side;
    if (!side)
        CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    size_t a = (size_t)M * K * sizeof(float), b = (size_t)K * N * sizeof(float);
    pending *p = (pending *)malloc(sizeof *p); // left for the callback: never freed
    p->C = C;
    p->bytes = (size_t)M * N * sizeof(float);
    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc((void **)&dA, a));
    CUDA_CHECK(cudaMalloc((void **)&dB, b));
    CUDA_CHECK(cudaMalloc((void **)&dC, p->bytes));
    CUDA_CHECK(cudaMallocHost((void **)&p->staging, p->bytes));
    CUDA_CHECK(cudaMemcpy(dA, A, a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B, b, cudaMemcpyHostToDevice));
    kernel<<<grid_of(M, N), dim3(32, 8), 0, side>>>(dA, dB, dC, M, N, K);
    CUDA_LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpyAsync(p->staging, dC, p->bytes, cudaMemcpyDeviceToHost, side));
    CUDA_CHECK(cudaLaunchHostFunc(side, deliver, p));
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    kernel<<<grid_of(M, N), dim3(32, 8)>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

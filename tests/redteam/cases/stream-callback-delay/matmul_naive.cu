// Red-team case stream-callback-delay: the work handed to the driver's host thread: a stream callback that waits, then the kernel, all on a non-blocking stream.
// Expected: too_slow or wrong (or rejected by the static checks).
#include "lab.h"
#include "matmul_naive.h"

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

#include <unistd.h>
// Runs on the CUDA driver's own host thread, after matmul_naive returned.
static void CUDART_CB linger(void *arg)
{
    (void)arg;
    usleep(200 * 1000);
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    static cudaStream_t side;
    if (!side)
        CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    CUDA_CHECK(cudaLaunchHostFunc(side, linger, NULL));
    kernel<<<grid_of(M, N), dim3(32, 8), 0, side>>>(A, B, C, M, N, K);
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

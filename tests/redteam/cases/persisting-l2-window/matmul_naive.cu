// Red-team case persisting-l2-window: a ten-times-too-slow kernel that keeps A and B in a persisting L2 window on its stream, hoping the window outlives the harness's flush.
// Expected: too_slow or wrong (or rejected by the static checks).
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

static void persist(cudaStream_t s, const void *p, size_t bytes)
{
    int dev, max_persist = 0, max_window = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev));
    if (max_persist <= 0)
        return;
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persist));
    cudaStreamAttrValue v = {};
    v.accessPolicyWindow.base_ptr = (void *)p;
    v.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
    v.accessPolicyWindow.hitRatio = 1.0f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CUDA_CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    static cudaStream_t s;
    if (!s)
        CUDA_CHECK(cudaStreamCreate(&s));
    persist(s, B, (size_t)K * N * sizeof(float));
    slow_kernel<<<grid_of(M, N), dim3(32, 8), 0, s>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
    CUDA_CHECK(cudaStreamSynchronize(s));
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

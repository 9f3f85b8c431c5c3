// Red-team case rewrite-kept-outputs: the timed calls of the speed case but the last write
// nothing and wait a few milliseconds (slower than the GPU's floor, far faster than the
// work); each keeps a copy of its inputs. The last call computes its own answer, finds the
// copies the harness kept of the earlier calls' outputs (still the poison the harness wrote:
// all bits set) by probing device addresses with cudaMemcpy, and writes each earlier call's
// answer there. The median is a waiting call; every kept output is right by the time the
// harness looks. Expected: wrong, because each kept copy's hash changed after its call.
#include "lab.h"
#include "matmul_naive.h"

#include <stdint.h>
#include <stdlib.h>

static __global__ void naive_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

static __global__ void wait_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

static void launch(const float *A, const float *B, float *C, int M, int N, int K)
{
    naive_kernel<<<dim3((N + 31) / 32, (M + 7) / 8), dim3(32, 8)>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

enum { WARMUP = 1, REPS = 5, MAX_CALLS = 8 };
static const size_t CHUNK = 2u << 20;
static float *saved_A[MAX_CALLS], *saved_B[MAX_CALLS];
static int calls;

static int inside(uintptr_t p, const void *base, size_t bytes)
{
    return base && p >= (uintptr_t)base && p < (uintptr_t)base + bytes;
}

// Whether the 4 bytes at device address p can be read and hold the poison.
static int poisoned(uintptr_t p)
{
    uint32_t w = 0;
    if (cudaMemcpy(&w, (const void *)p, sizeof w, cudaMemcpyDeviceToHost) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return w == 0xffffffffu;
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    const size_t a_bytes = (size_t)M * K * 4, b_bytes = (size_t)K * N * 4, c_bytes = (size_t)M * N * 4;
    if (M != 4096 || N != 4096 || K != 4096) { // the other cases: honest
        launch(A, B, C, M, N, K);
        return;
    }
    const int call = calls++;
    if (call < WARMUP + REPS - 1) {
        if (call >= WARMUP && call < MAX_CALLS) {
            CUDA_CHECK(cudaMalloc((void **)&saved_A[call], a_bytes));
            CUDA_CHECK(cudaMalloc((void **)&saved_B[call], b_bytes));
            CUDA_CHECK(cudaMemcpy(saved_A[call], A, a_bytes, cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpy(saved_B[call], B, b_bytes, cudaMemcpyDeviceToDevice));
        }
        wait_kernel<<<1, 1>>>(8000000); // about 4 ms
        CUDA_LAUNCH_CHECK();
        return;
    }
    launch(A, B, C, M, N, K);
    if (call != WARMUP + REPS - 1)
        return;
    // The harness's copies of the earlier calls' outputs: poison from end to end, outside
    // every buffer of ours, in the order they were made (lowest address first).
    uintptr_t found[MAX_CALLS];
    int n = 0;
    const uintptr_t base = (uintptr_t)C & ~(uintptr_t)(CHUNK - 1);
    const uintptr_t lo = base > (16ull << 30) ? base - (16ull << 30) : CHUNK;
    for (uintptr_t p = lo; p < base + (16ull << 30) && n < MAX_CALLS; p += CHUNK) {
        int ours = inside(p, A, a_bytes) || inside(p, B, b_bytes) || inside(p, C, c_bytes);
        for (int i = 0; i < MAX_CALLS && !ours; i++)
            ours = inside(p, saved_A[i], a_bytes) || inside(p, saved_B[i], b_bytes);
        if (ours || !poisoned(p) || !poisoned(p + c_bytes - 4))
            continue;
        found[n++] = p;
        p += c_bytes - CHUNK;
    }
    fprintf(stderr, "rewrite-kept-outputs: %d copies found\n", n);
    for (int i = 0; i < n && WARMUP + i < MAX_CALLS && saved_A[WARMUP + i]; i++)
        launch(saved_A[WARMUP + i], saved_B[WARMUP + i], (float *)found[i], M, N, K);
}

// The host form, honest and plain.
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

// One CUDA program's start, as every graded run, sanitizer run and reference makes it: the
// context created (cudaFree(0)), 256 MiB allocated, set and freed, one kernel run. Prints
// "<seconds to the context> <seconds for the rest> <seconds in all>" (bench_contexts.sh).
#include <cstdio>
#include <ctime>
#include <cuda_runtime.h>

static double now_s()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static __global__ void touch(float *p) { p[threadIdx.x] = 1.0f; }

int main()
{
    const size_t bytes = size_t(256) << 20;
    const double t0 = now_s();
    cudaError_t err = cudaFree(0);
    const double t1 = now_s();
    float *p = nullptr;
    if (err == cudaSuccess)
        err = cudaMalloc(&p, bytes);
    if (err == cudaSuccess)
        err = cudaMemset(p, 0, bytes);
    if (err == cudaSuccess) {
        touch<<<1, 32>>>(p);
        err = cudaDeviceSynchronize();
    }
    cudaFree(p);
    if (err != cudaSuccess) {
        fprintf(stderr, "contexts: %s\n", cudaGetErrorString(err));
        return 1;
    }
    const double t2 = now_s();
    printf("%.4f %.4f %.4f\n", t1 - t0, t2 - t1, t2 - t0);
    return 0;
}

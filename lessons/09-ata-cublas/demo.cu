// Lesson 09 demo (capstone): C = AᵀA in double for a single copy of A, computed six ways and
// measured side by side with the report's Tesla C2075 times: cuBLAS GEMM, cuBLAS SYRK, a naive
// kernel, the report's optimized kernel, and two FP64 tensor-core kernels of today.
//
//   make build/lessons/09-ata-cublas/demo && build/lessons/09-ata-cublas/demo [VERSION...]
//   --quick: small sizes only;  --csv DIR: tables as DIR/09-ata-cublas_<table>.csv
//
// version 0: cublasDgemm, A as the column-major Aᵀ, op N × op T            ./demo 0
// version 1: cublasDsyrk, one triangle, half the FLOPs                      ./demo 1
// version 2: naive, one thread per element, columns of A from global       ./demo 2
// version 3: the report's design: 48x48 tiles, 3x3 per thread, prefetch      ./demo 3
// version 4: DMMA m8n8k4 (sm_80+), 128x128 upper tiles, cp.async pipeline  ./demo 4
// version 5: DMMA m16n8k16 (sm_90+), otherwise as version 4                ./demo 5
//
// Rates use the 2·M·N² convention (the FLOPs of the full product) for every version, also for
// those that exploit the symmetry and do half the work: a rate is then "problems per second"
// and compares directly. Every version's output is checked on the CPU (Freivalds' test,
// exact rows and entries, symmetry) before it is timed; the exit status is 1 if one fails.
// Version 3 is the task's reference solution, compiled from solutions/09-ata-cublas/ata.cu.
#include "ata.h"
#include "ata_check.h"
#include "lab.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ======================================================================= CPU reference
// The check lives in ata_check.c (shared with the task harness). Here: the report's measured
// times on a Tesla C2075 (ms), for the sizes this demo runs too. A is rows×cols; the report's
// second table has rows = cols / 2 (its times are half those of the square table, as its
// work rows·cols² says they should be).
typedef struct seed_row {
    int rows, cols;
    double cublas_ms, naive_ms, optimized_ms;
} seed_row;

static const seed_row seed_times[] = {
    {500, 500, 1.073, 6.974, 0.835},
    {1500, 1500, 22.573, 180.851, 17.921},
    {2500, 2500, 104.699, 868.518, 79.603},
    {4500, 4500, 639.365, 5137.474, 443.847},
    {8500, 8500, 4302.248, 34880.836, 2977.607},
    {250, 500, 0.570, 3.386, 0.463},
    {750, 1500, 11.451, 90.520, 9.294},
    {1250, 2500, 52.332, 423.349, 40.172},
    {2250, 4500, 320.589, 2452.576, 222.644},
    {4250, 8500, 2155.037, 17387.340, 1491.243},
};

// The report's time for version v (0 cuBLAS, 2 naive, 3 optimized) at rows×cols; 0 when none.
static double seed_ms(int v, int rows, int cols)
{
    for (size_t i = 0; i < sizeof seed_times / sizeof *seed_times; i++) {
        const seed_row *s = &seed_times[i];
        if (s->rows == rows && s->cols == cols)
            return v == 0 ? s->cublas_ms : v == 2 ? s->naive_ms : v == 3 ? s->optimized_ms : 0;
    }
    return 0;
}

// ======================================================================= kernels
// Every kernel reads A as M×N row-major and writes the whole N×N row-major C.

// ----- cuBLAS fills one triangle; this copies it onto the other (untimed, for the check).
// cuBLAS's column-major "upper" triangle (row <= col) is, read row-major, the lower one.
static __global__ void mirror_lower_to_upper(double *C, int N)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < N && col < N && col > row)
        C[(size_t)row * N + col] = C[(size_t)col * N + row];
}

// ----- version 2: naive. Thread (i, j) walks columns i and j of A down its M rows. Along x,
// a warp reads 32 consecutive elements of one row of A (coalesced) and one broadcast element;
// nothing is reused from one thread to the next except through the caches.
static __global__ void ata_naive_v2(const double *__restrict__ A, double *__restrict__ C, int M, int N)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= N || j >= N)
        return;
    double acc = 0.0;
    for (int k = 0; k < M; k++)
        acc = fma(A[(size_t)k * N + i], A[(size_t)k * N + j], acc);
    C[(size_t)i * N + j] = acc;
}

// ----- version 3: the report's optimized design. It is the task's reference solution, built from
// its own file, so that this demo times the very code a student's kernel is measured against:
// 48×48 tiles of C on or above the diagonal, 16×16 threads with 3×3 results each in registers,
// the next 16-row slab of A fetched into registers while the current one is multiplied. The
// namespace keeps the solution's file-scope names apart from this file's.
namespace ata_solution {
#include "../../solutions/09-ata-cublas/ata.cu"
}

// ----- versions 4 and 5: FP64 tensor cores (DMMA), the same kernel with two instruction shapes.
// Block: a 128×128 tile of C on or above the diagonal, 8 warps as 2×4, each warp 64×32.
// Per k-step the block stages 16 rows of the two column panels of A it needs (columns i0.. and
// j0..) through a 4-deep cp.async pipeline: the copies of step k+3 fly while step k multiplies.
enum {
    TC_BM = 128,               // edge of a block's tile of C
    TC_BK = 16,                // rows of A per pipeline stage
    TC_STAGES = 4,
    TC_LD = TC_BM + 4,         // row pitch of a stage, in doubles; see tc_compute for the 4
    TC_WARPS_M = 2,
    TC_WARPS_N = 4,
    TC_THREADS = 32 * TC_WARPS_M * TC_WARPS_N,
    TC_WM = TC_BM / TC_WARPS_M, // 64 rows of C per warp
    TC_WN = TC_BM / TC_WARPS_N, // 32 columns of C per warp
    TC_MT = TC_WM / 8,          // 8×8 accumulator tiles per warp: 8 down ...
    TC_NT = TC_WN / 8,          // ... by 4 across
    TC_COPIES = TC_BK * TC_BM / TC_THREADS // 8-byte copies per thread per panel per stage
};
static_assert(TC_LD % 16 == 4, "fragment loads are conflict-free only with pitch = 4 (mod 16)");
static_assert(TC_BK % 16 == 0, "the m16n8k16 shape consumes 16 rows per instruction");
static_assert((TC_BK * TC_BM) % TC_THREADS == 0 && TC_THREADS % TC_BM == 0, "copy mapping");
static const size_t TC_SMEM = (size_t)TC_STAGES * 2 * TC_BK * TC_LD * sizeof(double);

enum tc_shape { TC_M8N8K4, TC_M16N8K16 };

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// Block b of the upper triangle of T×T tiles, numbered row by row: (0,0) (0,1) .. (0,T-1)
// (1,1) .. Counted from the end, rows hold 1, 2, 3, ... tiles, which inverts in closed form.
static __device__ __forceinline__ void tc_tile_of_block(int b, int T, int *bi, int *bj)
{
    const int q = T * (T + 1) / 2 - 1 - b;
    int rr = (int)((sqrt(8.0 * q + 1.0) - 1.0) / 2.0);
    while (rr * (rr + 1) / 2 > q) // guard the rounding of sqrt either way
        rr--;
    while ((rr + 1) * (rr + 2) / 2 <= q)
        rr++;
    *bi = T - 1 - rr;
    *bj = T - 1 - (q - rr * (rr + 1) / 2);
}

// 8 bytes global -> shared without passing through registers; src_bytes 0 writes zeros, which
// is how the edges of A are padded.
static __device__ __forceinline__ void cp_async_8(double *dst, const double *src, bool valid)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 8 : 0));
}
static __device__ __forceinline__ void cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
static __device__ __forceinline__ void cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

// D(8×8) += A(8×4) B(4×8). Lane l holds A[l/4][l%4], B[l%4][l/4], D[l/4][2(l%4) + {0,1}].
static __device__ __forceinline__ void dmma_m8n8k4(double (&d)[2], double a, double b)
{
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
        : "+d"(d[0]), "+d"(d[1])
        : "d"(a), "d"(b));
}
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// D(16×8) += A(16×16) B(16×8), sm_90. With r = l/4, c = l%4: a[2q + h] = A[r + 8h][c + 4q],
// b[q] = B[c + 4q][r], and D rows r (d0) and r + 8 (d1), columns 2c + {0,1}.
static __device__ __forceinline__ void dmma_m16n8k16(double (&d0)[2], double (&d1)[2], const double (&a)[8],
                                                     const double (&b)[4])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(d0[0]), "+d"(d0[1]), "+d"(d1[0]), "+d"(d1[1])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#endif

// One stage: sI holds A[k0 + kk][i0 + m], sJ holds A[k0 + kk][j0 + n], kk < TC_BK. The MMA's
// "A" operand is Aᵀ (element (m, kk) = sI[kk][m]) and its "B" operand is A (element (kk, n) =
// sJ[kk][n]): both read the same way, kk from the lane's low 2 bits, m or n from the high 3.
// Per half-warp that is 4 rows kk × 4 consecutive m; with the pitch 4 (mod 16) doubles, the 16
// addresses fall in 16 different bank pairs: the padding that the report found by experiment,
// derived.
template <int SHAPE>
static __device__ __forceinline__ void tc_compute(const double *sI, const double *sJ, int wm0, int wn0,
                                                  int r, int c, double (&acc)[TC_MT][TC_NT][2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (SHAPE == TC_M8N8K4) {
#pragma unroll
        for (int kk = 0; kk < TC_BK; kk += 4) {
            double a[TC_MT], b[TC_NT];
#pragma unroll
            for (int mi = 0; mi < TC_MT; mi++)
                a[mi] = sI[(kk + c) * TC_LD + wm0 + mi * 8 + r];
#pragma unroll
            for (int ni = 0; ni < TC_NT; ni++)
                b[ni] = sJ[(kk + c) * TC_LD + wn0 + ni * 8 + r];
#pragma unroll
            for (int mi = 0; mi < TC_MT; mi++)
#pragma unroll
                for (int ni = 0; ni < TC_NT; ni++)
                    dmma_m8n8k4(acc[mi][ni], a[mi], b[ni]);
        }
    }
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (SHAPE == TC_M16N8K16) {
#pragma unroll
        for (int kk = 0; kk < TC_BK; kk += 16) {
            double b[TC_NT][4];
#pragma unroll
            for (int ni = 0; ni < TC_NT; ni++)
#pragma unroll
                for (int q = 0; q < 4; q++)
                    b[ni][q] = sJ[(kk + c + 4 * q) * TC_LD + wn0 + ni * 8 + r];
#pragma unroll
            for (int mp = 0; mp < TC_MT / 2; mp++) {
                double a[8];
#pragma unroll
                for (int q = 0; q < 4; q++)
#pragma unroll
                    for (int h = 0; h < 2; h++)
                        a[2 * q + h] = sI[(kk + c + 4 * q) * TC_LD + wm0 + mp * 16 + r + 8 * h];
#pragma unroll
                for (int ni = 0; ni < TC_NT; ni++)
                    dmma_m16n8k16(acc[2 * mp][ni], acc[2 * mp + 1][ni], a, b[ni]);
            }
        }
    }
#endif
}

template <int SHAPE>
static __global__ void __launch_bounds__(TC_THREADS, 1)
ata_tc(const double *__restrict__ A, double *__restrict__ C, int M, int N, int tiles)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ double smem[];
    int bi, bj;
    tc_tile_of_block(blockIdx.x, tiles, &bi, &bj);
    const bool diag = bi == bj; // both panels are the same columns: stage one, read it twice
    const int i0 = bi * TC_BM, j0 = bj * TC_BM;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int wm0 = (warp / TC_WARPS_N) * TC_WM, wn0 = (warp % TC_WARPS_N) * TC_WN;
    const int r = lane >> 2, c = lane & 3;
    const int steps = (M + TC_BK - 1) / TC_BK;

    double acc[TC_MT][TC_NT][2];
#pragma unroll
    for (int mi = 0; mi < TC_MT; mi++)
#pragma unroll
        for (int ni = 0; ni < TC_NT; ni++)
            acc[mi][ni][0] = acc[mi][ni][1] = 0.0;

    // Copy p of a thread is row 2p + t/128, column t%128 of the stage: a warp copies 32
    // consecutive doubles of one row of A (256 bytes, coalesced).
    auto issue = [&](int step, int stage) {
        double *sI = smem + (size_t)stage * 2 * TC_BK * TC_LD, *sJ = sI + TC_BK * TC_LD;
        const int col = t % TC_BM;
#pragma unroll
        for (int p = 0; p < TC_COPIES; p++) {
            const int row = p * (TC_THREADS / TC_BM) + t / TC_BM, k = step * TC_BK + row;
            const bool in_i = k < M && i0 + col < N, in_j = k < M && j0 + col < N;
            // An invalid copy still needs a mapped address: A itself, of which it reads 0 bytes.
            cp_async_8(sI + row * TC_LD + col, in_i ? A + (size_t)k * N + i0 + col : A, in_i);
            if (!diag)
                cp_async_8(sJ + row * TC_LD + col, in_j ? A + (size_t)k * N + j0 + col : A, in_j);
        }
    };

    // Prologue: STAGES-1 steps in flight. A group is committed even when empty, so that
    // "wait until at most STAGES-2 groups are pending" always means "step s has landed".
#pragma unroll
    for (int s = 0; s < TC_STAGES - 1; s++) {
        if (s < steps)
            issue(s, s);
        cp_async_commit();
    }
    for (int s = 0; s < steps; s++) {
        cp_async_wait<TC_STAGES - 2>();
        // Step s is visible to every thread, and every warp has finished step s-1, whose
        // stage the copies issued next will overwrite.
        __syncthreads();
        if (s + TC_STAGES - 1 < steps)
            issue(s + TC_STAGES - 1, (s + TC_STAGES - 1) % TC_STAGES);
        cp_async_commit();
        const double *sI = smem + (size_t)(s % TC_STAGES) * 2 * TC_BK * TC_LD;
        tc_compute<SHAPE>(sI, diag ? sI : sI + TC_BK * TC_LD, wm0, wn0, r, c, acc);
    }
    cp_async_wait<0>();

    // Lane (r, c) of accumulator tile (mi, ni) holds C[i][j] and C[i][j+1]. The mirror stores
    // C[j][i]: for fixed j the 8 lanes with consecutive r write 64 contiguous bytes, two full
    // sectors, so the transposed half costs no more memory traffic than the direct one.
#pragma unroll
    for (int mi = 0; mi < TC_MT; mi++)
#pragma unroll
        for (int ni = 0; ni < TC_NT; ni++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int i = i0 + wm0 + mi * 8 + r, j = j0 + wn0 + ni * 8 + 2 * c + e;
                if (i < N && j < N) {
                    C[(size_t)i * N + j] = acc[mi][ni][e];
                    if (!diag)
                        C[(size_t)j * N + i] = acc[mi][ni][e];
                }
            }
#endif
}

// ======================================================================= launchers
typedef struct problem {
    int M, N;
    const double *A; // device, M×N row-major
    double *C;       // device, N×N
    cublasHandle_t blas;
} problem;

static void run_dgemm_v0(void *arg)
{
    const problem *p = (const problem *)arg;
    const double one = 1.0, zero = 0.0;
    // Column-major cuBLAS reads the row-major M×N array as the N×M matrix Aᵀ (lda = N), without
    // a copy. Aᵀ · (Aᵀ)ᵀ = AᵀA: the first operand as it is (N), the second transposed (T).
    CUBLAS_CHECK(cublasDgemm(p->blas, CUBLAS_OP_N, CUBLAS_OP_T, p->N, p->N, p->M, &one, p->A, p->N, p->A,
                             p->N, &zero, p->C, p->N));
}

static void run_dsyrk_v1(void *arg)
{
    const problem *p = (const problem *)arg;
    const double one = 1.0, zero = 0.0;
    // C = X Xᵀ with X = the same column-major view Aᵀ (N×M, no transpose). cuBLAS writes only
    // its upper triangle; the other half of the array is left as it was.
    CUBLAS_CHECK(cublasDsyrk(p->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, p->N, p->M, &one, p->A, p->N,
                             &zero, p->C, p->N));
}

static void finish_dsyrk_v1(const problem *p)
{
    dim3 block(32, 8), grid((p->N + 31) / 32, (p->N + 7) / 8);
    mirror_lower_to_upper<<<grid, block>>>(p->C, p->N);
    CUDA_LAUNCH_CHECK();
}

static void run_naive_v2(void *arg)
{
    const problem *p = (const problem *)arg;
    dim3 block(32, 32), grid((p->N + 31) / 32, (p->N + 31) / 32); // the report's 32×32 blocks
    ata_naive_v2<<<grid, block>>>(p->A, p->C, p->M, p->N);
    CUDA_LAUNCH_CHECK();
}

static void run_seed_v3(void *arg)
{
    const problem *p = (const problem *)arg;
    ata_solution::ata(p->A, p->C, p->M, p->N);
}

template <int SHAPE>
static void run_tc(const problem *p)
{
    const int tiles = (p->N + TC_BM - 1) / TC_BM;
    static int attribute_set;
    if (!attribute_set) { // above 48 KiB of dynamic shared memory a kernel must opt in
        CUDA_CHECK(cudaFuncSetAttribute(ata_tc<SHAPE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)TC_SMEM));
        attribute_set = 1;
    }
    ata_tc<SHAPE><<<tiles * (tiles + 1) / 2, TC_THREADS, TC_SMEM>>>(p->A, p->C, p->M, p->N, tiles);
    CUDA_LAUNCH_CHECK();
}
static void run_dmma_v4(void *arg) { run_tc<TC_M8N8K4>((const problem *)arg); }
static void run_dmma_v5(void *arg) { run_tc<TC_M16N8K16>((const problem *)arg); }

// NULL when the kernel can run here; otherwise why not. What counts is the code the kernel was
// built to (a build for an older ARCH compiles these bodies out), not only the GPU.
static const char *tc_unsupported(const void *kernel, int need_arch)
{
    static char why[128];
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    const int built = fa.ptxVersion < fa.binaryVersion ? fa.ptxVersion : fa.binaryVersion;
    int dev, optin = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (built < need_arch)
        snprintf(why, sizeof why, "unsupported: built for sm_%d, needs sm_%d or newer", built, need_arch);
    else if ((size_t)optin < TC_SMEM)
        snprintf(why, sizeof why, "unsupported: needs %zu bytes of shared memory per block", TC_SMEM);
    else
        return NULL;
    return why;
}
static const char *unsupported_v4(void) { return tc_unsupported((const void *)ata_tc<TC_M8N8K4>, 80); }
static const char *unsupported_v5(void) { return tc_unsupported((const void *)ata_tc<TC_M16N8K16>, 90); }

// ======================================================================= the versions
typedef struct version {
    lab_demo_version v;
    void (*finish)(const problem *p);  // untimed, after fn, before the check (NULL: none)
    const char *(*unsupported)(void);  // NULL, or returns why the version cannot run here
    const void *kernel;                // for the resources table (NULL: a library call)
    int block_threads;                 // its launch configuration, for the same table
    size_t dyn_smem;
} version;

static const version versions[] = {
    {{0, "dgemm", "cublasDgemm, A as column-major Aᵀ, op N × op T", run_dgemm_v0}, NULL, NULL, NULL, 0, 0},
    {{1, "dsyrk", "cublasDsyrk, one triangle, half the FLOPs (mirror untimed)", run_dsyrk_v1},
     finish_dsyrk_v1, NULL, NULL, 0, 0},
    {{2, "naive", "one thread per element, columns of A from global memory", run_naive_v2}, NULL, NULL,
     (const void *)ata_naive_v2, 32 * 32, 0},
    {{3, "report-opt", "the report's design: 48x48 upper tiles, 3x3/thread, prefetch (the solution)", run_seed_v3},
     NULL, NULL, (const void *)ata_solution::ata_kernel, ata_solution::THREADS, 0},
    {{4, "dmma-8x8x4", "FP64 tensor cores m8n8k4, 128x128 upper tiles, cp.async x4", run_dmma_v4}, NULL,
     unsupported_v4, (const void *)ata_tc<TC_M8N8K4>, TC_THREADS, TC_SMEM},
    {{5, "dmma-16x8x16", "as 4 with the sm_90 shape m16n8k16", run_dmma_v5}, NULL, unsupported_v5,
     (const void *)ata_tc<TC_M16N8K16>, TC_THREADS, TC_SMEM},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

// ======================================================================= main
typedef struct shape {
    int M, N;
} shape;

typedef struct run_opts {
    const lab_demo *d;
    int reps, warmup;
    uint64_t seed;
    double sgemm_gflops;
} run_opts;

static double run_timed_once(const version *v, problem *p)
{
    lab_timer tm;
    lab_timer_init(&tm, 0);
    lab_timer_start(&tm);
    v->v.fn(p);
    const double ms = lab_timer_stop(&tm);
    lab_timer_destroy(&tm);
    return ms;
}

// One shape: every wanted version checked, then timed; then one row each. Returns the number
// of wrong results. DGEMM and DSYRK always run: every other row is read as a ratio to them.
static int run_shape(const shape *sh, const run_opts *ro, lab_table *t, double ms[N_VERSIONS])
{
    const size_t M = (size_t)sh->M, N = (size_t)sh->N;
    double *hA = (double *)malloc(M * N * sizeof(double)), *hC = (double *)malloc(N * N * sizeof(double));
    if (!hA || !hC) {
        fprintf(stderr, "error: out of host memory for %dx%d\n", sh->M, sh->N);
        exit(LAB_EXIT_CUDA);
    }
    lab_fill_f64(hA, M * N, -1.0, 1.0, lab_seed_derive(ro->seed, "A"));
    problem p = {sh->M, sh->N, NULL, NULL, NULL};
    double *dA;
    CUDA_CHECK(cudaMalloc(&dA, M * N * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&p.C, N * N * sizeof(double)));
    CUDA_CHECK(cudaMemcpy(dA, hA, M * N * sizeof(double), cudaMemcpyHostToDevice));
    p.A = dA;
    CUBLAS_CHECK(cublasCreate(&p.blas));
    const char *why[N_VERSIONS] = {NULL};
    int ok[N_VERSIONS] = {0};
    int failures = 0;
    for (int v = 0; v < N_VERSIONS; v++) {
        ms[v] = 0;
        const version *ver = &versions[v];
        if ((!lab_demo_selected(ro->d, v) && v > 1) || (ver->unsupported && (why[v] = ver->unsupported())))
            continue;
        fprintf(stderr, "\r  %dx%d version %d ...      ", sh->M, sh->N, v);
        // Poisoned output: whatever a version fails to write stays NaN and fails the check.
        CUDA_CHECK(cudaMemset(p.C, 0xff, N * N * sizeof(double)));
        const double first_ms = run_timed_once(ver, &p);
        if (ver->finish)
            ver->finish(&p);
        CUDA_CHECK(cudaMemcpy(hC, p.C, N * N * sizeof(double), cudaMemcpyDeviceToHost));
        lab_compare_result cmp;
        lab_compare_init(&cmp);
        const lab_tolerance tol = {0.0, 1e-10};
        ata_check(hA, hC, M, N, tol, ro->seed, &cmp);
        ok[v] = lab_compare_passed(&cmp);
        if (!ok[v]) {
            char m[160] = "";
            if (cmp.shown)
                lab_mismatch_format(&cmp.first[0], N, m, sizeof m);
            fprintf(stderr, "\nversion %d at %dx%d is wrong: %s %s\n", v, sh->M, sh->N, cmp.note, m);
            failures++;
        }
        // A call of 100 ms or more is its own warm-up, and two samples do; one of 2 s or more
        // is the sample: the naive kernel at the report's largest sizes would otherwise take minutes.
        ms[v] = first_ms;
        if (first_ms < 2000.0) {
            const int slow = first_ms > 100.0;
            lab_bench_opts bo = {slow ? 0 : ro->warmup, slow ? 2 : ro->reps, 0, NULL};
            ms[v] = lab_bench(ver->v.fn, &p, &bo).median_ms;
        }
    }
    const double flops = 2.0 * (double)M * (double)N * (double)N;
    for (int v = 0; v < N_VERSIONS; v++) {
        const version *ver = &versions[v];
        if (why[v]) {
            lab_table_rowf(t, "%d|%d|%d|%s|-|-|-|-|-|-|%s", sh->M, sh->N, v, ver->v.name, why[v]);
            continue;
        }
        if (ms[v] <= 0)
            continue;
        const double tflops = flops / (ms[v] * 1e9), seed = seed_ms(v, sh->M, sh->N);
        char seed_cell[32] = "-";
        if (seed > 0)
            snprintf(seed_cell, sizeof seed_cell, "%.3f", seed);
        lab_table_rowf(t, "%d|%d|%d|%s|%.3f|%.2f|%.0f%%|%.2f|%.2f|%s|%s", sh->M, sh->N, v, ver->v.name, ms[v],
                       tflops, 100.0 * tflops * 1e3 / ro->sgemm_gflops, ms[0] / ms[v], ms[1] / ms[v], seed_cell,
                       ok[v] ? "ok" : "FAIL");
    }
    CUBLAS_CHECK(cublasDestroy(p.blas));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(p.C));
    free(hA);
    free(hC);
    return failures;
}

static lab_table *shape_table(const char *title)
{
    static const char *const cols[] = {"M",        "N",        "v",         "version",   "ms",   "TFLOP/s",
                                       "of SGEMM", "vs DGEMM", "vs DSYRK", "C2075 ms", "check"};
    return lab_table_new(title, cols, sizeof cols / sizeof *cols);
}

// Registers, shared memory and spills of each kernel: the report's "3×3 results in registers"
// and the tensor-core kernels' 64 accumulators per thread, as the compiler granted them.
static lab_table *resources_table(void)
{
    static const char *const cols[] = {"v", "version", "threads", "regs/thread", "smem/block", "spill bytes",
                                       "blocks/SM"};
    lab_table *t = lab_table_new("kernel resources (as compiled for this GPU)", cols, 7);
    for (int v = 0; v < N_VERSIONS; v++) {
        const version *ver = &versions[v];
        if (!ver->kernel || (ver->unsupported && ver->unsupported()))
            continue;
        if (ver->dyn_smem > 48 * 1024) // the occupancy query needs the same opt-in as a launch
            CUDA_CHECK(cudaFuncSetAttribute(ver->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)ver->dyn_smem));
        lab_kernel_info ki;
        lab_kernel_info_get(ver->kernel, ver->block_threads, ver->dyn_smem, &ki);
        lab_table_rowf(t, "%d|%s|%d|%d|%zu|%zu|%d", v, ver->v.name, ver->block_threads, ki.regs,
                       ki.static_smem + ver->dyn_smem, ki.local_bytes, ki.blocks_per_sm);
    }
    return t;
}

int main(int argc, char **argv)
{
    lab_demo d = {"09-ata-cublas", "Lesson 09: C = AᵀA with cuBLAS, naive, optimized and tensor-core kernels",
                  LAB_DEMO_REGISTRY(versions)};
    if (!lab_demo_start(&d, argc, argv))
        return d.status;
    const lab_options o = d.opts;
    run_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.d = &d;
    ro.reps = o.reps > 0 ? o.reps : 5;
    ro.warmup = o.warmup >= 0 ? o.warmup : 1;
    ro.seed = o.seed;
    ro.sgemm_gflops = lab_ceiling_sgemm_gflops();
    printf("ceiling: cuBLAS SGEMM (FP32, TF32 off) %.1f TFLOP/s on this GPU\n", ro.sgemm_gflops / 1e3);

    // The report's sizes where they fit in seconds, plus the size 4096.
    static const shape square_full[] = {{500, 500}, {1500, 1500}, {2500, 2500}, {4096, 4096}, {4500, 4500}, {8500, 8500}};
    static const shape wide_full[] = {{250, 500}, {750, 1500}, {1250, 2500}, {2250, 4500}, {4250, 8500}};
    static const shape square_quick[] = {{300, 300}, {500, 500}};
    static const shape wide_quick[] = {{250, 500}};
    const shape *square = o.quick ? square_quick : square_full, *wide = o.quick ? wide_quick : wide_full;
    const size_t n_square = o.quick ? 2 : sizeof square_full / sizeof *square_full;
    const size_t n_wide = o.quick ? 1 : sizeof wide_full / sizeof *wide_full;

    lab_table *tq = shape_table("square A (N×N): ms = median; TFLOP/s = 2·M·N²/time; vs X = time of X / time");
    lab_table *tw = shape_table("wide A (N/2 × N), the report's second table: same columns");
    static const char *const target_cols[] = {"v", "version", "ms", "DGEMM ms", "DSYRK ms", "vs DGEMM",
                                              "vs DSYRK", "beats DGEMM"};
    lab_table *tt = lab_table_new("target: A 4096×4096 — does a kernel of ours beat cublasDgemm?", target_cols, 8);
    int failures = 0;
    double ms[N_VERSIONS];
    for (size_t s = 0; s < n_square; s++) {
        failures += run_shape(&square[s], &ro, tq, ms);
        if (square[s].N != 4096)
            continue;
        for (int v = 2; v < N_VERSIONS; v++)
            if (ms[v] > 0)
                lab_table_rowf(tt, "%d|%s|%.3f|%.3f|%.3f|%.2f|%.2f|%s", v, versions[v].v.name, ms[v], ms[0], ms[1],
                               ms[0] / ms[v], ms[1] / ms[v], ms[v] < ms[0] ? "yes" : "no");
    }
    for (size_t s = 0; s < n_wide; s++)
        failures += run_shape(&wide[s], &ro, tw, ms);
    fprintf(stderr, "\r%50s\r", "");
    lab_table *tr = resources_table();

    lab_demo_emit(&d, tq, "square");
    lab_demo_emit(&d, tw, "wide");
    lab_demo_emit(&d, tt, "target");
    lab_demo_emit(&d, tr, "resources");
    if (failures)
        lab_demo_fail(&d, LAB_EXIT_FAIL);
    printf("C2075 ms: the report's Tesla C2075 time for the same algorithm (cuBLAS, naive, optimized).\n");
    if (failures)
        printf("%d version(s) computed a wrong C: see the messages above\n", failures);
    return d.status;
}

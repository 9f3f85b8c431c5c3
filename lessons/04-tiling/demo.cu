// Lesson 04 demo: shared-memory tiles, and the ladder from the Russian and Spanish lectures'
// kernels up to cuBLAS.
//
//   make build/lessons/04-tiling/demo && build/lessons/04-tiling/demo [VERSION...]
//   --quick: small sizes only; --list: the versions; --csv DIR: every table as CSV
//
// C = A·B in FP32, row-major (A M×K, B K×N, C M×N). Every version is timed side by side in one
// run and read as a fraction of cuBLAS SGEMM with TF32 off, measured at the same size. Four
// tables: the ladder (square sizes), the Spanish lecture's panel product (C n×n = A n×32 · B 32×n,
// the shape of that lecture's table), the Russian lecture's experiment with blocks per SM, and, apart from
// the ladder, cuBLAS on TF32 tensor cores (faster, less accurate: a different contest).
//
// Each rung of the ladder is one file, kernels/NN_name.cuh, NN its version (4 and 5 share
// 04_muld.cuh: one template, the unrolling its parameter): `diff` two neighbours to see the one
// idea a rung adds. Rungs 7 and 11 are the graded tasks' reference solutions, compiled from
// solutions/04-tiling/ itself.
//
// version 0: cuBLAS SGEMM, FP32 (TF32 off): the yardstick                       ./demo 0
// version 1: Spanish lecture's simpleMultiply: A and B from global memory       ./demo 1
// version 2: Spanish lecture's coalescedMultiply: the A tile through shared     ./demo 2
// version 3: Spanish lecture's sharedABMultiply: A and B tiles through shared   ./demo 3
// version 4: Russian lecture's Muld, 16x16 tiles, loop not unrolled (as on G80) ./demo 4
// version 5: 16x16 tiles, inner loop unrolled by 16                             ./demo 5
// version 6: 16x16 tiles, the Russian lecture's prefetching (double buffer)     ./demo 6
// version 7: task matmul_tiled's solution: 32x32 tiles, any size               ./demo 7
// version 8: 1-D register tiling: 64x64 block tile, 8 results per thread        ./demo 8
// version 9: 2-D register tiling: 128x128 block tile, 8x8 strided per thread   ./demo 9
// version 10: 2-D register tiling with float4 loads, 8 consecutive per thread   ./demo 10
// version 11: task matmul_regtile's solution: 8x8 per thread, 2 blocks/SM, any size ./demo 11
// version 12: warp tiling, double-buffered shared tiles, prefetch in registers   ./demo 12
// version 13: as 12, the B tile by cp.async (no registers on the way)           ./demo 13
// version 14: as 13 with a k-tile of 16: half the barriers                      ./demo 14
//
// Versions 1-3 exist only for the Spanish lecture's shape (K = 32); 7 and 11 take any size; the others
// need sizes that are multiples of their tiles (every size this demo runs is). Versions 12-14 are
// one kernel with three settings (kernels/12_warptile.cuh): the run shows which tops the ladder.
// The lesson's goals at 4096³ (rung 9 at 55% of cuBLAS, rung 10 at 65%, the top at 95%, every
// rung of 8-12 faster than the one before) are printed as "goal" lines after the ladder; the
// panel table adds one on the Spanish lecture's skinny shape (the top rungs at least as fast as
// cuBLAS at n = 4096).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

/* ================================================================== CPU reference */
/* The demo checks every version's first result with the lab's matrix-product check: exact
 * in double for small products, Freivalds' test plus sampled rows and columns above that.
 * Panel products above this many elements of C are timed but not checked (the check would
 * copy gigabytes back to the host and dominate the run). */
static const size_t check_limit_elems = (size_t)4096 * 4096;

static const lab_tolerance demo_tol = {0.0, 5e-5};

/* Fills r and returns 1 when C was checked, 0 when it is too large to check here. */
static int check_product(const float *hA, const float *hB, const float *dC, int M, int N, int K,
                         uint64_t seed, lab_compare_result *r)
{
    const size_t n_c = (size_t)M * N;
    lab_compare_init(r);
    if (n_c > check_limit_elems)
        return 0;
    float *hC = (float *)lab_xmalloc(n_c * sizeof(float));
    CUDA_CHECK(cudaMemcpy(hC, dC, n_c * sizeof(float), cudaMemcpyDeviceToHost));
    lab_check_gemm_f32(hA, hB, hC, M, N, K, demo_tol, seed, r);
    free(hC);
    return 1;
}

static const char *check_result(const float *hA, const float *hB, const float *dC,
                                int M, int N, int K, uint64_t seed)
{
    lab_compare_result r;
    if (!check_product(hA, hB, dC, M, N, K, seed, &r))
        return "-";
    return lab_compare_passed(&r) ? "ok" : "FAIL";
}

/* ================================================================== kernels and launchers */
/* The ladder, one rung per file; each launcher owns its launch configuration. */
#include "kernels/00_cublas.cuh"
#include "kernels/01_simple.cuh"
#include "kernels/02_coalesced.cuh"
#include "kernels/03_shared_ab.cuh"
#include "kernels/04_muld.cuh"
#include "kernels/06_prefetch.cuh"
#include "kernels/07_matmul_tiled.cuh"
#include "kernels/08_regtile1d.cuh"
#include "kernels/09_regtile2d.cuh"
#include "kernels/10_vectorized.cuh"
#include "kernels/11_matmul_regtile.cuh"
#include "kernels/12_warptile.cuh"

/* ================================================================== version registry */
enum shape_kind { SHAPE_SQUARE = 1, SHAPE_PANEL = 2, SHAPE_ANY = SHAPE_SQUARE | SHAPE_PANEL };

typedef struct version {
    lab_demo_version v;
    const void *kernel;    /* for the resource columns; NULL for cuBLAS */
    int threads;           /* per block */
    int align_mn, align_k; /* M, N multiples of align_mn; K of align_k */
    unsigned shapes;       /* where the version runs */
} version;

static const version versions[] = {
    {{0, "cublas", "cuBLAS SGEMM, FP32, TF32 off", gemm_v0}, NULL, 0, 1, 1, SHAPE_ANY},
    {{1, "simple", "Spanish lecture's simpleMultiply, global memory only", gemm_v1},
     (const void *)simple_multiply_kernel, 1024, PANEL_W, PANEL_W, SHAPE_PANEL},
    {{2, "coalesced", "Spanish lecture's coalescedMultiply, A tile in shared", gemm_v2},
     (const void *)coalesced_multiply_kernel, 1024, PANEL_W, PANEL_W, SHAPE_PANEL},
    {{3, "shared_ab", "Spanish lecture's sharedABMultiply, A and B tiles in shared", gemm_v3},
     (const void *)shared_ab_multiply_kernel, 1024, PANEL_W, PANEL_W, SHAPE_PANEL},
    {{4, "muld16", "Russian lecture's Muld, 16x16 tiles, not unrolled", gemm_v4},
     (const void *)muld_kernel<16, false>, 256, 16, 16, SHAPE_ANY},
    {{5, "muld16_unroll", "16x16 tiles, inner loop unrolled by 16", gemm_v5},
     (const void *)muld_kernel<16, true>, 256, 16, 16, SHAPE_ANY},
    {{6, "prefetch16", "16x16 tiles, next tile loaded during this one", gemm_v6},
     (const void *)prefetch_kernel<16>, 256, 16, 16, SHAPE_ANY},
    {{7, "matmul_tiled", "task solution: 32x32 tiles, one element per thread, any size", gemm_v7},
     (const void *)matmul_tiled_solution::matmul_tiled_kernel, 1024, 1, 1, SHAPE_ANY},
    {{8, "regtile1d", "1-D register tiles: 64x64 block, 8x1 per thread", gemm_v8},
     (const void *)regtile1d_kernel<V8_TILE>, 512, 64, 8, SHAPE_ANY},
    {{9, "regtile2d", "2-D register tiles: 128x128 block, 8x8 strided per thread", gemm_v9},
     (const void *)regtile2d_kernel<V9_TILE>, 256, 128, 8, SHAPE_ANY},
    {{10, "vectorized", "2-D register tiles, float4 loads, 8x8 consecutive per thread", gemm_v10},
     (const void *)vectorized_kernel<V9_TILE>, 256, 128, 8, SHAPE_ANY},
    {{11, "matmul_regtile", "task solution: 8x8 per thread in quadrants, 2 blocks/SM, any size",
      gemm_v11},
     (const void *)matmul_regtile_solution::matmul_regtile_kernel<false>, matmul_regtile_solution::THREADS,
     1, 1, SHAPE_ANY},
    {{12, "warptile_db", "warp tiles, double-buffered shared, prefetch", gemm_v12},
     (const void *)warptile_kernel<V12_CONF>, WT_THREADS, 128, V12_BK, SHAPE_ANY},
    {{13, "warptile_async", "as 12, B tile global -> shared by cp.async", gemm_v13},
     (const void *)warptile_kernel<V13_CONF>, WT_THREADS, 128, V13_BK, SHAPE_ANY},
    {{14, "warptile_k16", "as 13 with k-tile 16, half the barriers", gemm_v14},
     (const void *)warptile_kernel<V14_CONF>, WT_THREADS, 128, V14_BK, SHAPE_ANY},
};
enum { N_VERSIONS = sizeof(versions) / sizeof(versions[0]) };

static int version_fits(const version *v, unsigned shape, int M, int N, int K)
{
    if (!(v->shapes & shape))
        return 0;
    return M % v->align_mn == 0 && N % v->align_mn == 0 && K % v->align_k == 0;
}

/* ================================================================== main */
typedef struct run_ctx {
    lab_demo *demo;
    const lab_options *opts; /* &demo->opts */
    lab_bench_opts bench;
} run_ctx;

typedef struct problem {
    int M, N, K;
    float *hA, *hB;  /* host inputs (kept for the check) */
    float *dA, *dB, *dC;
} problem;

static void problem_make(problem *p, int M, int N, int K, uint64_t seed)
{
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    p->M = M;
    p->N = N;
    p->K = K;
    p->hA = (float *)lab_xmalloc(na * sizeof(float));
    p->hB = (float *)lab_xmalloc(nb * sizeof(float));
    lab_fill_f32(p->hA, na, -1.0f, 1.0f, lab_seed_derive(seed, "A"));
    lab_fill_f32(p->hB, nb, -1.0f, 1.0f, lab_seed_derive(seed, "B"));
    CUDA_CHECK(cudaMalloc((void **)&p->dA, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&p->dB, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&p->dC, nc * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(p->dA, p->hA, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p->dB, p->hB, nb * sizeof(float), cudaMemcpyHostToDevice));
}

/* What a version is handed. */
static gemm_problem gemm_of(const problem *p)
{
    const gemm_problem g = {p->dA, p->dB, p->dC, p->M, p->N, p->K};
    return g;
}

static void problem_free(problem *p)
{
    free(p->hA);
    free(p->hB);
    CUDA_CHECK(cudaFree(p->dA));
    CUDA_CHECK(cudaFree(p->dB));
    CUDA_CHECK(cudaFree(p->dC));
}

/* One call checked against the inputs (C poisoned first: unwritten elements are NaN), then
 * warm-up and timed repetitions. Returns the median time; *check gets "ok" / "FAIL" / "-". */
static double measure(const run_ctx *ctx, const version *v, const problem *p, const char **check)
{
    gemm_problem g = gemm_of(p);
    CUDA_CHECK(cudaMemset(p->dC, 0xff, (size_t)p->M * p->N * sizeof(float)));
    v->v.fn(&g);
    CUDA_CHECK(cudaDeviceSynchronize());
    *check = check_result(p->hA, p->hB, p->dC, p->M, p->N, p->K, ctx->opts->seed);
    const lab_timing t = lab_bench(v->v.fn, &g, &ctx->bench);
    return t.median_ms;
}

static void resource_cells(const version *v, char *regs, char *smem, char *occ, size_t len)
{
    if (!v->kernel) {
        snprintf(regs, len, "-");
        snprintf(smem, len, "-");
        snprintf(occ, len, "-");
        return;
    }
    lab_kernel_info ki;
    lab_kernel_info_get(v->kernel, v->threads, 0, &ki);
    snprintf(regs, len, "%d", ki.regs);
    snprintf(smem, len, "%zu", ki.static_smem);
    snprintf(occ, len, "%.0f%% (%d blk)", 100.0 * ki.occupancy, ki.blocks_per_sm);
}

static double gflops(int M, int N, int K, double ms)
{
    return 2.0 * M * N * (double)K / (ms * 1e6);
}

/* The lesson's goals at 4096³, from each version's fraction of cuBLAS there (0: not run). */
static void ladder_goals(lab_demo *d, const double of_cublas[N_VERSIONS])
{
    static const struct { int v; double goal; } goals[] = {{9, 0.55}, {10, 0.65}, {12, 0.95}, {13, 0.95}, {14, 0.95}};
    for (size_t g = 0; g < sizeof goals / sizeof goals[0]; ++g) {
        const int v = goals[g].v;
        if (of_cublas[v] <= 0)
            continue;
        char what[96];
        snprintf(what, sizeof what, "SGEMM 4096^3 v%d %s / cuBLAS", v, versions[v].v.name);
        lab_demo_goal(d, what, of_cublas[v], goals[g].goal, "x", 0);
    }
    /* The ladder proper, rungs 8-12: how many are no faster than the rung before. */
    int slower = 0, counted = 0;
    for (int v = 9; v <= 12; ++v) {
        if (of_cublas[v] <= 0 || of_cublas[v - 1] <= 0)
            continue;
        counted++;
        slower += of_cublas[v] <= of_cublas[v - 1];
    }
    if (counted)
        lab_demo_goal(d, "SGEMM 4096^3 rungs 8-12 no faster than the one before", slower, 0, "rungs", 1);
}

/* The ladder: square sizes; cuBLAS is measured at every size (the yardstick) even when
 * version 0 is not asked for. */
static void run_ladder(const run_ctx *ctx)
{
    static const int full[] = {1024, 2048, 4096};
    static const int quick[] = {256, 512};
    const int *sizes = ctx->opts->quick ? quick : full;
    const size_t n_sizes = ctx->opts->quick ? 2 : 3;
    static const char *const cols[] = {"v", "name", "size", "ms", "GFLOP/s", "of cuBLAS",
                                       "of SGEMM ceiling", "regs", "smem B", "occupancy",
                                       "check"};
    lab_table *t = lab_table_new("ladder: C = A*B, M = N = K = size, FP32", cols, 11);
    const double ceiling = lab_ceiling_sgemm_gflops();
    double of_cublas[N_VERSIONS] = {0};
    for (size_t s = 0; s < n_sizes; ++s) {
        const int n = sizes[s];
        problem p;
        problem_make(&p, n, n, n, ctx->opts->seed);
        const char *check;
        const double base_ms = measure(ctx, &versions[0], &p, &check);
        for (int i = 0; i < N_VERSIONS; ++i) {
            const version *v = &versions[i];
            if (!lab_demo_selected(ctx->demo, i) || !version_fits(v, SHAPE_SQUARE, n, n, n))
                continue;
            const double ms = i == 0 ? base_ms : measure(ctx, v, &p, &check);
            const double rate = gflops(n, n, n, ms);
            if (n == 4096 && strcmp(check, "FAIL") != 0)
                of_cublas[i] = base_ms / ms;
            char regs[32], smem[32], occ[32];
            resource_cells(v, regs, smem, occ, sizeof regs);
            lab_table_rowf(t, "%d|%s|%d|%.3f|%.0f|%.1f%%|%.1f%%|%s|%s|%s|%s", v->v.id, v->v.name, n,
                           ms, rate, 100.0 * base_ms / ms, 100.0 * rate / ceiling, regs, smem,
                           occ, check);
        }
        problem_free(&p);
    }
    printf("SGEMM ceiling (cuBLAS, 4096^3, FP32, TF32 off): %.0f GFLOP/s\n", ceiling);
    lab_demo_emit(ctx->demo, t, "ladder");
    ladder_goals(ctx->demo, of_cublas);
}

/* The Spanish lecture's table: C (n×n) = A (n×32) · B (32×n). With K = 32 each C element is 64 FLOPs
 * and 4 bytes written, so large n is bound by writing C: the table also gives the bytes
 * moved against the measured copy bandwidth. */
static void run_panel(const run_ctx *ctx)
{
    static const int full[] = {512, 1024, 2048, 4096, 8192, 16384, 32768};
    static const int quick[] = {512, 1024};
    const int *sizes = ctx->opts->quick ? quick : full;
    const size_t n_sizes = ctx->opts->quick ? 2 : 7;
    static const char *const cols[] = {"v", "name", "n", "ms", "GFLOP/s", "of cuBLAS", "GB/s",
                                       "of copy", "check"};
    lab_table *t = lab_table_new("Spanish lecture's panel: C (n x n) = A (n x 32) * B (32 x n)", cols, 9);
    const double copy = lab_ceiling_copy_gbps();
    /* The goal on a shape where cuBLAS's choice of kernel is weak: the best warp-tiled rung
     * (12-14) against cuBLAS at n = 4096, the largest n whose products are checked. */
    double goal_base_ms = 0, goal_best_ms = 0;
    for (size_t s = 0; s < n_sizes; ++s) {
        const int n = sizes[s];
        problem p;
        problem_make(&p, n, n, PANEL_W, ctx->opts->seed);
        const char *check;
        const double base_ms = measure(ctx, &versions[0], &p, &check);
        const double bytes = 4.0 * ((double)n * n + 2.0 * n * PANEL_W);
        for (int i = 0; i < N_VERSIONS; ++i) {
            const version *v = &versions[i];
            if (!lab_demo_selected(ctx->demo, i) || !version_fits(v, SHAPE_PANEL, n, n, PANEL_W))
                continue;
            const double ms = i == 0 ? base_ms : measure(ctx, v, &p, &check);
            if (n == 4096 && i >= 12 && !strcmp(check, "ok") && (goal_best_ms == 0 || ms < goal_best_ms)) {
                goal_base_ms = base_ms;
                goal_best_ms = ms;
            }
            const double gbps = bytes / (ms * 1e6);
            lab_table_rowf(t, "%d|%s|%d|%.3f|%.0f|%.1f%%|%.0f|%.1f%%|%s", v->v.id, v->v.name, n, ms,
                           gflops(n, n, PANEL_W, ms), 100.0 * base_ms / ms, gbps,
                           100.0 * gbps / copy, check);
        }
        problem_free(&p);
    }
    printf("copy ceiling (device-to-device, read + write): %.0f GB/s\n", copy);
    lab_demo_emit(ctx->demo, t, "panel"); /* CSV name: lessons/04-tiling/plot.gp reads it */
    if (goal_best_ms > 0)
        lab_demo_goal(ctx->demo, "SGEMM panel n=4096, K=32: best of v12-v14 / cuBLAS", goal_base_ms / goal_best_ms,
                      1.0, "x", 0);
}

/* The Russian lecture's experiment: the same kernel with 1, 2, ... blocks allowed per SM. Extra dynamic
 * shared memory (unused by the kernel) is what limits residency, as the
 * lecture's 16 KB did on G80. */
static size_t smem_for_blocks(const void *kernel, int threads, int want)
{
    int dev, optin;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    /* The opt-in limit covers static and dynamic shared memory together. */
    const size_t max_dyn = (size_t)optin - fa.sharedSizeBytes;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)max_dyn));
    for (size_t dyn = 0; dyn + 1024 <= max_dyn; dyn += 1024) {
        int blocks;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dyn));
        if (blocks <= want)
            return dyn;
    }
    return max_dyn;
}

typedef struct occupancy_arg {
    const void *kernel;
    const problem *p;
    size_t dyn;
} occupancy_arg;

static void occupancy_call(void *q)
{
    const occupancy_arg *a = (const occupancy_arg *)q;
    const dim3 block(16, 16), grid(a->p->N / 16, a->p->M / 16);
    const float *A = a->p->dA, *B = a->p->dB;
    float *C = a->p->dC;
    int wA = a->p->K, wB = a->p->N;
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&wA, (void *)&wB};
    CUDA_CHECK(cudaLaunchKernel(a->kernel, grid, block, args, a->dyn, 0));
    CUDA_LAUNCH_CHECK();
}

static void run_blocks_per_sm(const run_ctx *ctx)
{
    const int n = ctx->opts->quick ? 512 : 1024; /* the lecture's size */
    static const int limits[] = {1, 2, 4, 8};
    static const int ids[] = {4, 5};
    static const char *const cols[] = {"v", "name", "size", "blocks/SM", "dyn smem B", "ms",
                                       "GFLOP/s", "of SGEMM ceiling"};
    lab_table *t = lab_table_new("Russian lecture's Muld: blocks resident per SM (16x16 tiles)", cols, 8);
    const double ceiling = lab_ceiling_sgemm_gflops();
    problem p;
    problem_make(&p, n, n, n, ctx->opts->seed);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; ++i) {
        const version *v = &versions[ids[i]];
        if (!lab_demo_selected(ctx->demo, v->v.id))
            continue;
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; ++l) {
            occupancy_arg a = {v->kernel, &p, smem_for_blocks(v->kernel, v->threads, limits[l])};
            int blocks;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v->kernel,
                                                                     v->threads, a.dyn));
            const lab_timing tm = lab_bench(occupancy_call, &a, &ctx->bench);
            const double rate = gflops(n, n, n, tm.median_ms);
            lab_table_rowf(t, "%d|%s|%d|%d|%zu|%.3f|%.0f|%.1f%%", v->v.id, v->v.name, n, blocks,
                           a.dyn, tm.median_ms, rate, 100.0 * rate / ceiling);
        }
    }
    problem_free(&p);
    lab_demo_emit(ctx->demo, t, "blocks_per_sm");
}

static void run_tf32(const run_ctx *ctx)
{
    if (!lab_demo_selected(ctx->demo, 0))
        return;
    static const int full[] = {1024, 2048, 4096};
    static const int quick[] = {256, 512};
    const int *sizes = ctx->opts->quick ? quick : full;
    const size_t n_sizes = ctx->opts->quick ? 2 : 3;
    static const char *const cols[] = {"math", "size", "ms", "GFLOP/s", "of FP32 cuBLAS",
                                       "max rel err", "check (rtol 5e-5)"};
    lab_table *t = lab_table_new("a different contest: cuBLAS SGEMM on TF32 tensor cores", cols, 7);
    static const struct { const char *name; lab_demo_fn fn; } modes[] = {
        {"FP32 (pedantic)", gemm_v0}, {"TF32 tensor op", gemm_tf32}};
    for (size_t s = 0; s < n_sizes; ++s) {
        const int n = sizes[s];
        problem p;
        problem_make(&p, n, n, n, ctx->opts->seed);
        double fp32_ms = 0.0;
        for (size_t m = 0; m < 2; ++m) {
            gemm_problem g = gemm_of(&p);
            CUDA_CHECK(cudaMemset(p.dC, 0xff, (size_t)n * n * sizeof(float)));
            modes[m].fn(&g);
            CUDA_CHECK(cudaDeviceSynchronize());
            lab_compare_result r;
            const int checked = check_product(p.hA, p.hB, p.dC, n, n, n, ctx->opts->seed, &r);
            const double ms = lab_bench(modes[m].fn, &g, &ctx->bench).median_ms;
            if (m == 0)
                fp32_ms = ms;
            lab_table_rowf(t, "%s|%d|%.3f|%.0f|%.1f%%|%.1e|%s", modes[m].name, n, ms,
                           gflops(n, n, n, ms), 100.0 * fp32_ms / ms, r.max_rel_err,
                           !checked ? "-" : lab_compare_passed(&r) ? "ok" : "FAIL");
        }
        problem_free(&p);
    }
    lab_demo_emit(ctx->demo, t, "tf32");
}

int main(int argc, char **argv)
{
    lab_demo demo = {"04-tiling", "Lesson 04: shared-memory tiles and the ladder to cuBLAS",
                     LAB_DEMO_REGISTRY(versions)};
    if (!lab_demo_start(&demo, argc, argv))
        return demo.status;
    const lab_options *o = &demo.opts;
    printf("\n");
    CUBLAS_CHECK(cublasCreate(&cublas));
    /* Pedantic math: FP32 multiplies and adds on the FP32 pipes, never TF32 tensor cores. */
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_PEDANTIC_MATH));
    run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.demo = &demo;
    ctx.opts = o;
    ctx.bench.warmup = o->warmup >= 0 ? o->warmup : 2;
    ctx.bench.reps = o->reps >= 0 ? o->reps : (o->quick ? 3 : 10);
    ctx.bench.flush_l2 = o->flush_l2;

    run_ladder(&ctx);
    run_panel(&ctx);
    run_blocks_per_sm(&ctx);
    run_tf32(&ctx);

    CUBLAS_CHECK(cublasDestroy(cublas));
    return demo.status;
}

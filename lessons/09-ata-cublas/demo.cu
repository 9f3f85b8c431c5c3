// Lesson 09 demo (capstone): C = AᵀA in double for a single copy of A, computed nine ways and
// measured side by side with the report's Tesla C2075 times: cuBLAS GEMM, cuBLAS SYRK, a naive
// kernel, the report's optimized kernel, and five FP64 tensor-core kernels of today.
//
//   make build/lessons/09-ata-cublas/demo && build/lessons/09-ata-cublas/demo [VERSION...]
//   --quick: small sizes only;  --csv DIR: tables as DIR/09-ata-cublas_<table>.csv
//   --all-sizes: every row of the report's two tables, N up to 18500 (square) and 20500 (wide)
//
// version 0: cublasDgemm, A as the column-major Aᵀ, op N × op T            ./demo 0
// version 1: cublasDsyrk, one triangle, half the FLOPs                      ./demo 1
// version 2: naive, one thread per element, columns of A from global       ./demo 2
// version 3: the report's design: 48x48 tiles, 3x3 per thread, prefetch      ./demo 3
// version 4: DMMA m8n8k4 (sm_80+), 128x128 upper tiles, cp.async pipeline  ./demo 4
// version 5: DMMA m16n8k16 (sm_90+), otherwise as version 4                ./demo 5
// version 6: as 5, 16-byte cp.async.cg, k-tile 32 x 3 stages, copies mid-step ./demo 6
// version 7: as 6 with version 5's k-tile 16, 6 stages                     ./demo 7
// version 8: as 6 with cublasDsyrk's 64x64 tiles, 2 blocks/SM, fragments ahead ./demo 8
//
// Rates use the 2·M·N² convention (the FLOPs of the full product) for every version, also for
// those that exploit the symmetry and do half the work: a rate is then "problems per second"
// and compares directly. The target table at N = 4096 also gives the rate of useful work, the
// triangle's M·N·(N+1) FLOPs, the work cublasDsyrk does; the goal lines after it are the
// lesson's: a kernel of ours at 1.10 ms or less, faster than cublasDsyrk. Every version's
// output is checked on the CPU (Freivalds' test, exact rows and entries, symmetry) before it is
// timed; the exit status is 1 if one fails.
// Version 3 is the task's reference solution, compiled from solutions/09-ata-cublas/ata.cu.
//
// The kernels and their launchers are in kernels/NN_name.cuh, NN the first version a file
// holds: 00_cublas (0-1), 02_naive, 03_report_opt, 04_dmma (4-5, the FP64 tensor cores),
// 06_dmma_syrk (6-8, the same with a leaner copy pipeline; 8 with smaller tiles). This
// file keeps the problem, the table of versions, the check-then-time loop and the tables.
#include "ata.h"
#include "ata_check.h"
#include "lab.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ======================================================================= CPU reference
// The check lives in ata_check.c (shared with the task harness). Here: the report's measured
// times on a Tesla C2075 (ms), every row of its two tables (README, section 8). A is
// rows×cols; the second table has rows = cols / 2 (its times are half those of the square
// table, as its work rows·cols² says they should be). --all-sizes runs every row.
typedef struct report_row {
    int rows, cols;
    double cublas_ms, naive_ms, optimized_ms;
} report_row;

static const report_row report_times[] = {
    // square A (N×N)
    {500, 500, 1.073, 6.974, 0.835}, {1500, 1500, 22.573, 180.851, 17.921},
    {2500, 2500, 104.699, 868.518, 79.603}, {3500, 3500, 306.367, 2425.482, 209.281},
    {4500, 4500, 639.365, 5137.474, 443.847}, {5500, 5500, 1179.054, 9392.390, 810.816},
    {6500, 6500, 1924.438, 15629.293, 1341.195}, {7500, 7500, 2902.237, 23864.572, 2061.611},
    {8500, 8500, 4302.248, 34880.836, 2977.607}, {9500, 9500, 5931.083, 48458.543, 4131.801},
    {10500, 10500, 7957.450, 65922.313, 5578.560}, {11500, 11500, 10558.385, 86009.234, 7340.344},
    {12500, 12500, 13514.066, 110914.188, 9412.655}, {13500, 13500, 17130.453, 138974.625, 11852.910},
    {14500, 14500, 21147.750, 173428.047, 14993.040}, {15500, 15500, 25684.318, 210843.969, 18281.053},
    {16500, 16500, 31266.859, 255267.141, 21683.658}, {17500, 17500, 37002.031, 302650.219, 26032.162},
    {18500, 18500, 43581.590, 360222.531, 30854.096},
    // wide A (N/2 × N)
    {250, 500, 0.570, 3.386, 0.463}, {750, 1500, 11.451, 90.520, 9.294},
    {1250, 2500, 52.332, 423.349, 40.172}, {1750, 3500, 141.682, 1152.235, 105.523},
    {2250, 4500, 320.589, 2452.576, 222.644}, {2750, 5500, 590.782, 4563.408, 406.717},
    {3250, 6500, 964.656, 7761.969, 671.951}, {3750, 7500, 1456.138, 11834.445, 1030.867},
    {4250, 8500, 2155.037, 17387.340, 1491.243}, {4750, 9500, 2967.366, 24126.561, 2059.071},
    {5250, 10500, 3988.701, 32879.125, 2784.587}, {5750, 11500, 5274.079, 42965.281, 3652.860},
    {6250, 12500, 6744.590, 55363.922, 4689.003}, {6750, 13500, 8545.609, 69391.531, 5904.020},
    {7250, 14500, 10546.562, 86676.516, 7398.440}, {7750, 15500, 12787.450, 105108.047, 9099.423},
    {8250, 16500, 15574.900, 127502.445, 10770.195}, {8750, 17500, 18555.031, 151280.891, 12833.893},
    {9250, 18500, 21775.717, 179886.000, 15313.980}, {9750, 19500, 25576.779, 209357.594, 17860.482},
    {10250, 20500, 29781.045, 244419.813, 20572.283},
};
enum { N_REPORT = sizeof report_times / sizeof *report_times };

// The report's time for version v (0 cuBLAS, 2 naive, 3 optimized) at rows×cols; 0 when none.
static double report_ms(int v, int rows, int cols)
{
    for (size_t i = 0; i < N_REPORT; i++) {
        const report_row *s = &report_times[i];
        if (s->rows == rows && s->cols == cols)
            return v == 0 ? s->cublas_ms : v == 2 ? s->naive_ms : v == 3 ? s->optimized_ms : 0;
    }
    return 0;
}

// ======================================================================= kernels and launchers
// Every kernel reads A as M×N row-major and writes the whole N×N row-major C.

typedef struct problem {
    int M, N;
    const double *A; // device, M×N row-major
    double *C;       // device, N×N
    cublasHandle_t blas;
} problem;

// One file per kernel, included here: each launcher takes a problem.
#include "kernels/00_cublas.cuh"
#include "kernels/02_naive.cuh"
#include "kernels/03_report_opt.cuh"
#include "kernels/04_dmma.cuh"
#include "kernels/06_dmma_syrk.cuh"

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
    {{3, "report-opt", "the report's design: 48x48 upper tiles, 3x3/thread, prefetch (the solution)", run_report_opt_v3},
     NULL, NULL, (const void *)ata_solution::ata_kernel, ata_solution::THREADS, 0},
    {{4, "dmma-8x8x4", "FP64 tensor cores m8n8k4, 128x128 upper tiles, cp.async x4", run_dmma_v4}, NULL,
     unsupported_v4, (const void *)ata_tc<TC_M8N8K4>, TC_THREADS, TC_SMEM},
    {{5, "dmma-16x8x16", "as 4 with the sm_90 shape m16n8k16", run_dmma_v5}, NULL, unsupported_v5,
     (const void *)ata_tc<TC_M16N8K16>, TC_THREADS, TC_SMEM},
    {{6, "dmma-k32", "as 5, 16-byte copies, k-tile 32 x 3 stages, copies mid-step", run_syrk_v6}, NULL,
     unsupported_v6, (const void *)ata_syrk<V6_BK, V6_STAGES, 2>, TC_THREADS, syrk_cfg<V6_BK, V6_STAGES>::SMEM},
    {{7, "dmma-k16x6", "as 6 with k-tile 16 x 6 stages", run_syrk_v7}, NULL, unsupported_v7,
     (const void *)ata_syrk<V7_BK, V7_STAGES, 2>, TC_THREADS, syrk_cfg<V7_BK, V7_STAGES>::SMEM},
    {{8, "dmma-64", "cublasDsyrk's tiles (64x64, 4 warps, 2 blocks/SM), fragments a chunk ahead", run_syrk_v8},
     NULL, unsupported_v8, (const void *)ata_syrk64<2>, S8_THREADS, S8_SMEM},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

// ======================================================================= main
typedef struct shape {
    int M, N;
} shape;

typedef struct shape_set {
    shape s[N_REPORT]; // the report's rows are the most a table runs
    size_t n;
} shape_set;

static void shapes_of(shape_set *set, const shape *s, size_t n)
{
    set->n = n < N_REPORT ? n : N_REPORT;
    memcpy(set->s, s, set->n * sizeof *s);
}

// Every row of the report's square table (wide 0) or of its wide one (rows = cols / 2).
static void report_shapes(shape_set *set, int wide)
{
    set->n = 0;
    for (size_t i = 0; i < N_REPORT; i++) {
        const report_row *r = &report_times[i];
        if (wide ? 2 * r->rows == r->cols : r->rows == r->cols) {
            const shape sh = {r->rows, r->cols};
            set->s[set->n++] = sh;
        }
    }
}

// The most elements of A (c 0) or of C (c 1) over both sets: the buffers' sizes.
static size_t largest(const shape_set *a, const shape_set *b, int c)
{
    size_t most = 1;
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < (t ? b : a)->n; i++) {
            const shape *sh = &(t ? b : a)->s[i];
            const size_t e = (size_t)sh->N * (size_t)(c ? sh->N : sh->M);
            most = e > most ? e : most;
        }
    return most;
}

typedef struct run_opts {
    const lab_demo *d;
    int reps, reps_large, warmup; // reps_large: from N = LARGE_N on
    uint64_t seed;
    double sgemm_gflops;
} run_opts;

enum { LARGE_N = 8000 };

// Host and device buffers for the largest shape of the run, and the cuBLAS handle, made once:
// the host side pinned, so that copying each version's C back (3.4 GB at the report's largest
// size) runs at the bus's speed.
typedef struct buffers {
    double *hA, *hC, *dA, *dC;
    cublasHandle_t blas;
} buffers;

static void buffers_make(buffers *b, size_t a_elems, size_t c_elems)
{
    CUDA_CHECK(cudaMallocHost((void **)&b->hA, a_elems * sizeof(double)));
    CUDA_CHECK(cudaMallocHost((void **)&b->hC, c_elems * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&b->dA, a_elems * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&b->dC, c_elems * sizeof(double)));
    CUBLAS_CHECK(cublasCreate(&b->blas));
}

static void buffers_free(buffers *b)
{
    CUBLAS_CHECK(cublasDestroy(b->blas));
    CUDA_CHECK(cudaFreeHost(b->hA));
    CUDA_CHECK(cudaFreeHost(b->hC));
    CUDA_CHECK(cudaFree(b->dA));
    CUDA_CHECK(cudaFree(b->dC));
}

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
// What the check needs from A alone is worked out once, for every version's C.
static int run_shape(const shape *sh, const run_opts *ro, const buffers *b, lab_table *t, double ms[N_VERSIONS])
{
    const size_t M = (size_t)sh->M, N = (size_t)sh->N;
    double *hA = b->hA, *hC = b->hC;
    lab_fill_f64(hA, M * N, -1.0, 1.0, lab_seed_derive(ro->seed, "A"));
    problem p = {sh->M, sh->N, b->dA, b->dC, b->blas};
    CUDA_CHECK(cudaMemcpy(b->dA, hA, M * N * sizeof(double), cudaMemcpyHostToDevice));
    ata_check_plan *plan = ata_check_prepare(hA, M, N, ro->seed);
    const int reps = sh->N >= LARGE_N ? ro->reps_large : ro->reps;
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
        ata_check_apply(plan, hA, hC, tol, &cmp);
        ok[v] = lab_compare_passed(&cmp);
        if (!ok[v]) {
            char m[160] = "";
            if (cmp.shown)
                lab_mismatch_format(&cmp.first[0], N, m, sizeof m);
            fprintf(stderr, "\nversion %d at %dx%d is wrong: %s %s\n", v, sh->M, sh->N, cmp.note, m);
            failures++;
        }
        // A call of 100 ms or more is its own warm-up, and two samples do; one of 1 s or more
        // is the sample: the naive kernel at the report's largest sizes takes seconds a call.
        ms[v] = first_ms;
        if (first_ms < 1000.0) {
            const int slow = first_ms > 100.0;
            lab_bench_opts bo = {slow ? 0 : ro->warmup, slow ? 2 : reps, 0, NULL};
            ms[v] = lab_bench(ver->v.fn, &p, &bo).median_ms;
        }
    }
    ata_check_plan_free(plan);
    const double flops = 2.0 * (double)M * (double)N * (double)N;
    for (int v = 0; v < N_VERSIONS; v++) {
        const version *ver = &versions[v];
        if (why[v]) {
            lab_table_rowf(t, "%d|%d|%d|%s|-|-|-|-|-|-|%s", sh->M, sh->N, v, ver->v.name, why[v]);
            continue;
        }
        if (ms[v] <= 0)
            continue;
        const double tflops = flops / (ms[v] * 1e9), then = report_ms(v, sh->M, sh->N);
        char report_cell[32] = "-";
        if (then > 0)
            snprintf(report_cell, sizeof report_cell, "%.3f", then);
        lab_table_rowf(t, "%d|%d|%d|%s|%.3f|%.2f|%.0f%%|%.2f|%.2f|%s|%s", sh->M, sh->N, v, ver->v.name, ms[v],
                       tflops, 100.0 * tflops * 1e3 / ro->sgemm_gflops, ms[0] / ms[v], ms[1] / ms[v], report_cell,
                       ok[v] ? "ok" : "FAIL");
    }
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

// The target, A 4096×4096: every version's time and its rate of useful work, the triangle's
// M·N·(N+1) FLOPs (cublasDsyrk's work; a full product computes the other half again).
static lab_table *target_table(void)
{
    static const char *const cols[] = {"v",        "version",  "ms",          "triangle TFLOP/s",
                                       "vs DGEMM", "vs DSYRK", "beats DSYRK"};
    return lab_table_new("target: A 4096×4096 — does a kernel of ours beat cublasDsyrk? (rate: useful work)", cols,
                         7);
}

static void target_rows(lab_table *tt, const double ms[N_VERSIONS])
{
    const double useful = 4096.0 * 4096.0 * 4097.0;
    for (int v = 0; v < N_VERSIONS; v++)
        if (ms[v] > 0)
            lab_table_rowf(tt, "%d|%s|%.3f|%.2f|%.2f|%.2f|%s", v, versions[v].v.name, ms[v],
                           useful / (ms[v] * 1e9), ms[0] / ms[v], ms[1] / ms[v], ms[v] < ms[1] ? "yes" : "no");
}

// The lesson's goals at N = 4096, for each m16n8k16 tensor-core kernel (versions 5 and up):
// 1.10 ms or less, and faster than cublasDsyrk measured in the same run.
static void target_goals(lab_demo *d, const double ms[N_VERSIONS])
{
    for (int v = 5; v < N_VERSIONS; v++) {
        if (ms[v] <= 0)
            continue;
        char what[96];
        snprintf(what, sizeof what, "AtA FP64 N=4096 v%d %s time", v, versions[v].v.name);
        lab_demo_goal(d, what, ms[v], 1.10, "ms", 1);
        snprintf(what, sizeof what, "AtA FP64 N=4096 v%d %s speed / cublasDsyrk", v, versions[v].v.name);
        lab_demo_goal(d, what, ms[1] / ms[v], 1.0, "x", 0);
    }
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
    ro.reps_large = o.reps > 0 ? o.reps : o.all_sizes ? 3 : ro.reps;
    ro.warmup = o.warmup >= 0 ? o.warmup : 1;
    ro.seed = o.seed;
    ro.sgemm_gflops = lab_ceiling_sgemm_gflops();
    printf("ceiling: cuBLAS SGEMM (FP32, TF32 off) %.1f TFLOP/s on this GPU\n", ro.sgemm_gflops / 1e3);

    // By default the report's sizes where they fit in seconds, plus the size 4096;
    // --all-sizes: every row of the report's tables, and nothing else.
    static const shape square_default[] = {{500, 500}, {1500, 1500}, {2500, 2500}, {4096, 4096}, {4500, 4500}, {8500, 8500}};
    static const shape wide_default[] = {{250, 500}, {750, 1500}, {1250, 2500}, {2250, 4500}, {4250, 8500}};
    // 301: an odd N, where versions 6 and 7 take their 8-byte copy path.
    static const shape square_quick[] = {{300, 300}, {301, 301}, {500, 500}};
    static const shape wide_quick[] = {{250, 500}};
    shape_set square, wide;
    if (o.all_sizes) {
        report_shapes(&square, 0);
        report_shapes(&wide, 1);
    } else if (o.quick) {
        shapes_of(&square, square_quick, sizeof square_quick / sizeof *square_quick);
        shapes_of(&wide, wide_quick, sizeof wide_quick / sizeof *wide_quick);
    } else {
        shapes_of(&square, square_default, sizeof square_default / sizeof *square_default);
        shapes_of(&wide, wide_default, sizeof wide_default / sizeof *wide_default);
    }
    buffers b;
    buffers_make(&b, largest(&square, &wide, 0), largest(&square, &wide, 1));

    lab_table *tq = shape_table("square A (N×N): ms = median; TFLOP/s = 2·M·N²/time; vs X = time of X / time");
    lab_table *tw = shape_table("wide A (N/2 × N), the report's second table: same columns");
    lab_table *tt = target_table();
    int failures = 0;
    double ms[N_VERSIONS], ms_target[N_VERSIONS] = {0};
    for (size_t s = 0; s < square.n; s++) {
        failures += run_shape(&square.s[s], &ro, &b, tq, ms);
        if (square.s[s].N == 4096 && square.s[s].M == 4096) {
            target_rows(tt, ms);
            memcpy(ms_target, ms, sizeof ms);
        }
    }
    for (size_t s = 0; s < wide.n; s++)
        failures += run_shape(&wide.s[s], &ro, &b, tw, ms);
    buffers_free(&b);
    fprintf(stderr, "\r%50s\r", "");
    lab_table *tr = resources_table();

    lab_demo_emit(&d, tq, "square");
    lab_demo_emit(&d, tw, "wide");
    lab_demo_emit(&d, tt, "target");
    lab_demo_emit(&d, tr, "resources");
    target_goals(&d, ms_target);
    if (failures)
        lab_demo_fail(&d, LAB_EXIT_FAIL);
    printf("C2075 ms: the report's Tesla C2075 time for the same algorithm (cuBLAS, naive, optimized).\n");
    if (failures)
        printf("%d version(s) computed a wrong C: see the messages above\n", failures);
    return d.status;
}

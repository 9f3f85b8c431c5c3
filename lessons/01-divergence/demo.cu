// Lesson 01 demo: what a branch costs when it splits a warp, how a reduction tree avoids the
// split, and what unrolling and inlining buy today. Every version runs and is checked in one go.
//
//   make build/lessons/01-divergence/demo && build/lessons/01-divergence/demo [VERSION...]
//   --quick: small sizes (seconds); --csv DIR: each table as DIR/01-divergence_<table>.csv
//
// version 1: branch on threadIdx.x % 2: every warp runs both paths, one after the other   ./demo 1
// version 2: branch on (threadIdx.x / warpSize) % 2: each warp runs one path              ./demo 2
// version 3: reduction, interleaved addressing, tid % (2*s) test (divergent tree)         ./demo 3
// version 4: reduction, sequential addressing, tid < s test (whole warps drop out)        ./demo 4
// version 5: reduction, sequential addressing until 32 values remain, then warp shuffles  ./demo 5
// version 6: 16 strided loads per thread, #pragma unroll 1 (one load in flight)           ./demo 6
// version 7: 16 strided loads per thread, #pragma unroll (16 loads in flight)             ./demo 7
// version 8: a loop that calls a __noinline__ device function                             ./demo 8
// version 9: the same loop with the function inlined (__forceinline__)                    ./demo 9
// version 10: the library's reduction, cub::DeviceReduce::Sum, on 2^28 floats (1 GiB)       ./demo 10
// version 11: ours on 2^28 floats: float4 loads, one wave of blocks, one launch             ./demo 11
//
// Versions 1-2 and 8-9 are rated in FLOP/s against the cuBLAS SGEMM ceiling, 3-7 and 10-11 in
// bytes read per second against the device-to-device copy ceiling, both measured here, in this
// run. Versions 10-11 read the task's speed-case size, with the L2 flushed before every run.
//
// The kernels and their launchers are in kernels/NN_name.cuh, NN the first version a file holds:
// 01_branch (1-2), 03_reduce (3-5), 06_unroll (6-7), 08_inline (8-9), 10_library (10-11).
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BRANCH_ITERS 512 // FMAs per thread in each path of versions 1-2
#define CALL_ITERS 512   // calls per thread in versions 8-9
#define REDUCE_THREADS 256
#define LOADS_PER_THREAD 16
#define FULL_MASK 0xffffffffu

static_assert(REDUCE_THREADS == 256, "the reduction kernels are written for 8 warps per block");

// ======================================================================= CPU reference
// The two paths of versions 1-2. fmaf rounds once, exactly as the GPU's FFMA does, so the GPU
// result must match these bit for bit.
static float path_a_cpu(float x)
{
    for (int k = 0; k < BRANCH_ITERS; ++k) x = fmaf(x, 0.999f, 0.001f);
    return x;
}

static float path_b_cpu(float x)
{
    for (int k = 0; k < BRANCH_ITERS; ++k) x = fmaf(x, x, -0.25f);
    return x;
}

static float step_cpu(float x)
{
    for (int k = 0; k < CALL_ITERS; ++k) x = fmaf(x, 0.999f, 0.001f);
    return x;
}

// Integer-valued inputs (see the task's harness): every summation order gives the exact sum.
static void fill_small_integers(float *x, size_t n, uint64_t seed)
{
    int32_t *as_int = (int32_t *)(void *)x;
    lab_fill_i32(as_int, n, -8, 8, seed);
    for (size_t i = 0; i < n; ++i) {
        int32_t v;
        memcpy(&v, &x[i], sizeof v);
        x[i] = (float)v;
    }
}

static double exact_sum(const float *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += x[i];
    return s;
}

// ======================================================================= what the launchers share
typedef struct problem {
    unsigned n;        // elements
    const float *in;   // device, n floats
    float *out;        // device, n floats
    float *partial[2]; // device, ceil(n / 256) floats each: the reduction levels alternate
    const float *result; // where the last reduction left its single value
    // versions 10-11 only
    float *sum;            // device, one float: their result
    void *cub_temp;        // CUB's scratch, sized and allocated once, before any timed call
    size_t cub_temp_bytes;
    unsigned wave_blocks;  // version 11's grid: the blocks that are resident at once
    float *wave_partial;   // device, wave_blocks floats
    unsigned *blocks_done; // device, one counter; 0 between calls
} problem;

typedef void (*block_reduce_kernel)(const float *, unsigned, float *);

static void reduce_with(problem *p, block_reduce_kernel kernel)
{
    const float *src = p->in;
    unsigned count = p->n;
    int level = 0;
    while (count > 1) {
        const unsigned blocks = (count + REDUCE_THREADS - 1) / REDUCE_THREADS;
        float *dst = p->partial[level % 2];
        kernel<<<blocks, REDUCE_THREADS>>>(src, count, dst);
        CUDA_LAUNCH_CHECK();
        src = dst;
        count = blocks;
        ++level;
    }
    p->result = src;
}

static unsigned blocks_for(unsigned n, unsigned threads)
{
    return (n + threads - 1) / threads;
}

// ======================================================================= kernels and launchers
// One file per group of versions, kernels/NN_name.cuh, NN the first version it holds.
#include "kernels/01_branch.cuh"
#include "kernels/03_reduce.cuh"
#include "kernels/06_unroll.cuh"
#include "kernels/08_inline.cuh"
// Versions 10-11: the library's reduction and our top rung.
#include "kernels/10_library.cuh"

// ======================================================================= checks
// Each returns 1 when the version's output is right; the host copies are the inputs.
static int check_branch(const problem *p, const float *h_in, int per_warp)
{
    float *h_out = (float *)malloc((size_t)p->n * sizeof(float));
    if (!h_out) return 0;
    CUDA_CHECK(cudaMemcpy(h_out, p->out, (size_t)p->n * sizeof(float), cudaMemcpyDeviceToHost));
    int ok = 1;
    for (unsigned i = 0; i < p->n && ok; i += 997) {
        const unsigned lane = i % 256; // threadIdx.x of element i: blocks of 256
        const int take_a = per_warp ? (lane / 32) % 2 : lane % 2;
        const float want = take_a ? path_a_cpu(h_in[i]) : path_b_cpu(h_in[i]);
        ok = memcmp(&want, &h_out[i], sizeof want) == 0;
    }
    free(h_out);
    return ok;
}

static int check_reduce(const problem *p, const float *h_in)
{
    float got;
    CUDA_CHECK(cudaMemcpy(&got, p->result, sizeof got, cudaMemcpyDeviceToHost));
    return (double)got == exact_sum(h_in, p->n);
}

static int check_strided(const problem *p, const float *h_in)
{
    const unsigned threads = p->n / LOADS_PER_THREAD;
    float *h_out = (float *)malloc((size_t)threads * sizeof(float));
    if (!h_out) return 0;
    CUDA_CHECK(cudaMemcpy(h_out, p->out, (size_t)threads * sizeof(float), cudaMemcpyDeviceToHost));
    int ok = 1;
    for (unsigned t = 0; t < threads && ok; ++t) {
        double want = 0.0;
        for (int j = 0; j < LOADS_PER_THREAD; ++j) want += h_in[t + (size_t)j * threads];
        ok = (double)h_out[t] == want;
    }
    free(h_out);
    return ok;
}

static int check_calls(const problem *p, const float *h_in)
{
    float *h_out = (float *)malloc((size_t)p->n * sizeof(float));
    if (!h_out) return 0;
    CUDA_CHECK(cudaMemcpy(h_out, p->out, (size_t)p->n * sizeof(float), cudaMemcpyDeviceToHost));
    int ok = 1;
    for (unsigned i = 0; i < p->n && ok; i += 997) {
        const float want = step_cpu(h_in[i]);
        ok = memcmp(&want, &h_out[i], sizeof want) == 0;
    }
    free(h_out);
    return ok;
}

// ======================================================================= the versions
enum group_id { GROUP_BRANCH, GROUP_REDUCE, GROUP_UNROLL, GROUP_INLINE, GROUP_LIBRARY, N_GROUPS };

// What a group measures, and against which ceiling its rate is read.
typedef struct group {
    const char *table; // CSV name suffix
    const char *title;
    int bytes;         // 1: rate in GB/s against the copy ceiling; 0: GFLOP/s against SGEMM
} group;

static const group groups[N_GROUPS] = {
    {"branch", "Divergence: the same two paths, chosen per thread (1) or per warp (2)", 0},
    {"reduce", "Reduction trees: n floats to one sum, same kernel at every level", 1},
    {"unroll", "Unrolling: 16 independent strided loads per thread", 1},
    {"inline", "Calls: one FMA per call, out of line or inlined", 0},
    {"library", "Reduction at the task's speed-case size: ours against the library (CUB)", 1},
};

typedef struct version {
    lab_demo_version v;
    enum group_id group;
} version;

static const version versions[] = {
    {{1, "branch-thread", "if (threadIdx.x % 2): both paths in every warp", run_branch_thread_v1}, GROUP_BRANCH},
    {{2, "branch-warp", "if ((threadIdx.x / warpSize) % 2): one path per warp", run_branch_warp_v2}, GROUP_BRANCH},
    {{3, "interleaved", "tree with tid % (2*s) == 0: divergent at every step", run_reduce_interleaved_v3}, GROUP_REDUCE},
    {{4, "sequential", "tree with tid < s: whole warps retire", run_reduce_sequential_v4}, GROUP_REDUCE},
    {{5, "seq+shuffle", "tid < s until 32 values remain, then shuffles", run_reduce_shuffle_v5}, GROUP_REDUCE},
    {{6, "unroll-1", "#pragma unroll 1: one load in flight per thread", run_rolled_v6}, GROUP_UNROLL},
    {{7, "unroll-16", "#pragma unroll: 16 loads in flight per thread", run_unrolled_v7}, GROUP_UNROLL},
    {{8, "noinline", "__noinline__ device function in the loop", run_noinline_v8}, GROUP_INLINE},
    {{9, "inline", "__forceinline__ device function in the loop", run_inline_v9}, GROUP_INLINE},
    {{10, "cub", "cub::DeviceReduce::Sum, scratch allocated once, on 2^28 floats", run_cub_v10}, GROUP_LIBRARY},
    {{11, "float4-wave", "float4 loads, one wave of blocks, last block adds the partials", run_wave_v11}, GROUP_LIBRARY},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

// ======================================================================= main
// Work of one call: bytes read for the memory-bound groups, useful FLOPs for the others.
static double work_of(const version *v, unsigned n)
{
    switch (v->group) {
    case GROUP_BRANCH: return 2.0 * BRANCH_ITERS * n;
    case GROUP_INLINE: return 2.0 * CALL_ITERS * n;
    case GROUP_REDUCE:
    case GROUP_UNROLL:
    case GROUP_LIBRARY: return (double)n * sizeof(float);
    default: return 0.0;
    }
}

static int check_version(const version *v, const problem *p, const float *h_real, const float *h_int)
{
    switch (v->v.id) {
    case 1: return check_branch(p, h_real, 0);
    case 2: return check_branch(p, h_real, 1);
    case 6:
    case 7: return check_strided(p, h_int);
    case 8:
    case 9: return check_calls(p, h_real);
    default: return check_reduce(p, h_int);
    }
}

// The inputs every group's run needs, and how to time and rate it.
typedef struct inputs {
    const float *h_real, *h_int; // host copies, for the checks
    const float *d_real, *d_int; // the same on the device
    const float *h_big, *d_big;  // versions 10-11: n_big integer-valued floats (NULL: not asked)
    unsigned n_big;
    lab_bench_opts bench;
    double copy_gbps, sgemm_gflops;
} inputs;

// One version of group g: run once and checked (its output poisoned first), then timed.
static lab_timing measure(lab_demo *d, const version *ver, problem *p, const inputs *in, int *ok)
{
    const int g = ver->group;
    const float *h_int = g == GROUP_LIBRARY ? in->h_big : in->h_int;
    fprintf(stderr, "\r  measuring version %d...   ", ver->v.id);
    // NaN in the output: a version that writes nothing fails its check
    CUDA_CHECK(g == GROUP_LIBRARY ? cudaMemset(p->sum, 0xFF, sizeof(float))
                                  : cudaMemset(p->out, 0xFF, (size_t)p->n * sizeof(float)));
    ver->v.fn(p);
    CUDA_CHECK(cudaDeviceSynchronize());
    *ok = check_version(ver, p, in->h_real, h_int);
    if (!*ok) lab_demo_fail(d, LAB_EXIT_FAIL);
    lab_bench_opts bench = in->bench;
    if (g == GROUP_LIBRARY) bench.flush_l2 = 1; // its table claims a cold L2
    return lab_bench(ver->v.fn, p, &bench);
}

// The goal of the library group: our top rung's throughput over CUB's, when both ran.
static void library_goal(lab_demo *d, const version *const *measured, const lab_timing *timing, int count)
{
    double cub_ms = 0.0, ours_ms = 0.0;
    for (int r = 0; r < count; ++r) {
        if (measured[r]->v.id == 10) cub_ms = timing[r].median_ms;
        if (measured[r]->v.id == 11) ours_ms = timing[r].median_ms;
    }
    if (cub_ms > 0.0 && ours_ms > 0.0)
        lab_demo_goal(d, "reduce_sum: ours (11) / CUB (10) throughput", cub_ms / ours_ms, 0.98, "x", 0);
}

// The selected versions of group g: each checked, then timed; then one table, in which every row
// also reads against the group's slowest.
static void run_group(lab_demo *d, int g, problem *p, const inputs *in)
{
    static const char *const cols[] = {"version", "name", "time", "rate", "unit", "% of ceiling",
                                       "ceiling", "x slowest", "check"};
    const version *measured[N_VERSIONS];
    lab_timing timing[N_VERSIONS];
    int ok[N_VERSIONS];
    int count = 0;
    double slowest_ms = 0.0;
    for (int v = 0; v < N_VERSIONS; ++v) {
        const version *ver = &versions[v];
        if (ver->group != g || !lab_demo_selected(d, ver->v.id)) continue;
        if (g != GROUP_LIBRARY) p->in = (g == GROUP_REDUCE || g == GROUP_UNROLL) ? in->d_int : in->d_real;
        timing[count] = measure(d, ver, p, in, &ok[count]);
        if (timing[count].median_ms > slowest_ms) slowest_ms = timing[count].median_ms;
        measured[count++] = ver;
    }
    fprintf(stderr, "\r%40s\r", "");
    if (count == 0) return;
    const double ceiling = groups[g].bytes ? in->copy_gbps : in->sgemm_gflops;
    char title[256];
    snprintf(title, sizeof title, "%s; n = %u%s", groups[g].title, p->n,
             !groups[g].bytes ? ""
             : (in->bench.flush_l2 || g == GROUP_LIBRARY) ? ", L2 cold (flushed before each run)"
                                                           : ", L2 warm (not flushed)");
    lab_table *t = lab_table_new(title, cols, sizeof cols / sizeof *cols);
    for (int r = 0; r < count; ++r) {
        const double rate = work_of(measured[r], p->n) / (timing[r].median_ms * 1e-3) / 1e9;
        char time[32], pct[32];
        lab_fmt_ms(timing[r].median_ms, time, sizeof time);
        lab_fmt_pct(rate / ceiling, pct, sizeof pct);
        lab_table_rowf(t, "%d|%s|%s|%.1f|%s|%s|%s %.0f|%.2f|%s", measured[r]->v.id, measured[r]->v.name,
                       time, rate, groups[g].bytes ? "GB/s" : "GFLOP/s", pct,
                       groups[g].bytes ? "copy" : "SGEMM", ceiling,
                       slowest_ms / timing[r].median_ms, ok[r] ? "ok" : "WRONG");
    }
    lab_demo_emit(d, t, groups[g].table);
    if (g == GROUP_LIBRARY) library_goal(d, measured, timing, count);
}

// Versions 10-11: their own input of n_big floats (the task's speed case) and the device state of
// kernels/10_library.cuh. Set up only when one of them was asked for.
static void library_setup(lab_demo *d, problem *big, inputs *in, uint64_t seed)
{
    const unsigned n = in->n_big;
    float *h = (float *)lab_xmalloc((size_t)n * sizeof(float));
    float *dev;
    fill_small_integers(h, n, lab_seed_derive(seed, "big"));
    CUDA_CHECK(cudaMalloc(&dev, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dev, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    in->h_big = h;
    in->d_big = dev;
    big->n = n;
    big->in = dev;
    library_alloc(big, d->device.sm_count);
}

static void library_teardown(problem *big, inputs *in)
{
    library_free(big);
    CUDA_CHECK(cudaFree((void *)in->d_big));
    free((void *)in->h_big);
}

int main(int argc, char **argv)
{
    lab_demo d = {"01-divergence", "Lesson 01: divergence, reduction trees, unrolling, inlining",
                  LAB_DEMO_REGISTRY(versions)};
    if (!lab_demo_start(&d, argc, argv)) return d.status;
    const lab_options o = d.opts;

    // A multiple of 256 * LOADS_PER_THREAD, as versions 6-7 need; 2^24 floats is 64 MiB, past
    // the L2, so the memory-bound versions read DRAM.
    const unsigned n = o.quick ? (1u << 20) : (1u << 24);
    const int reps = o.reps > 0 ? o.reps : (o.quick ? 3 : 10);
    const int warmup = o.warmup >= 0 ? o.warmup : 1;

    float *h_real = (float *)lab_xmalloc((size_t)n * sizeof(float));
    float *h_int = (float *)lab_xmalloc((size_t)n * sizeof(float));
    lab_fill_f32(h_real, n, -0.5f, 0.5f, lab_seed_derive(o.seed, "real"));
    fill_small_integers(h_int, n, lab_seed_derive(o.seed, "int"));

    float *d_real, *d_int;
    problem p;
    memset(&p, 0, sizeof p);
    p.n = n;
    CUDA_CHECK(cudaMalloc(&d_real, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_int, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.out, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.partial[0], (size_t)blocks_for(n, REDUCE_THREADS) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.partial[1], (size_t)blocks_for(n, REDUCE_THREADS) * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_real, h_real, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_int, h_int, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));

    // Versions 10-11 read the reduce_sum task's speed case: 2^28 floats, 1 GiB.
    inputs in = {h_real, h_int, d_real, d_int, NULL, NULL, o.quick ? (1u << 20) : (1u << 28),
                 {warmup, reps, o.flush_l2, NULL}, lab_ceiling_copy_gbps(), lab_ceiling_sgemm_gflops()};
    problem big = {};
    const int library = lab_demo_selected(&d, 10) || lab_demo_selected(&d, 11);
    if (library) library_setup(&d, &big, &in, o.seed);
    for (int g = 0; g < N_GROUPS; ++g)
        run_group(&d, g, g == GROUP_LIBRARY ? &big : &p, &in);
    if (library) library_teardown(&big, &in);

    CUDA_CHECK(cudaFree(d_real));
    CUDA_CHECK(cudaFree(d_int));
    CUDA_CHECK(cudaFree(p.out));
    CUDA_CHECK(cudaFree(p.partial[0]));
    CUDA_CHECK(cudaFree(p.partial[1]));
    free(h_real);
    free(h_int);
    return d.status;
}

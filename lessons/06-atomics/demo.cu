// Lesson 06 demo: what atomics guarantee, what contention costs, and the two ways around it
// (privatize in shared memory, aggregate within a warp), measured side by side.
//
//   make build/lessons/06-atomics/demo && build/lessons/06-atomics/demo [VERSION...]
//   --quick: 16 MiB inputs instead of 256 MiB; --csv DIR: the tables as DIR/06-atomics_<table>.csv
//
// version 1: every thread does counter = counter + 1, no atomic (updates lost)  ./demo 1
// version 2: every thread does atomicAdd(counter, 1) (every update lands)       ./demo 2
// version 3: histogram, one global atomicAdd per byte                             ./demo 3
// version 4: histogram, private per-block histogram in shared memory, byte loads  ./demo 4
// version 5: histogram, as 4 with 16-byte loads (the task's solution)             ./demo 5
// version 6: histogram, as 5 + warp aggregation (__match_any_sync)                ./demo 6
// version 7: float max, an atomicCAS loop per element                             ./demo 7
// version 8: float max, warp shuffles + shared memory, one atomicCAS per block    ./demo 8
// version 9: compaction, one atomicAdd per kept element                           ./demo 9
// version 10: compaction, one atomicAdd per warp (__ballot_sync + __popc)         ./demo 10
// version 11: compaction, one atomicAdd per block and 2048 elements (the solution) ./demo 11
// version 12: histogram, the library's: cub::DeviceHistogram::HistogramEven        ./demo 12
// version 13: histogram, as 5 + warp aggregation of runs only (vote, then match)   ./demo 13
// version 14: histogram, as 3 + warp aggregation (__match_any_sync) of global atomics ./demo 14
//
// The histograms run on uniform bytes and on bytes that all fall in one bin (every atomic of
// the GPU on one address). Every result is checked on the CPU before it is timed. Versions 5
// and 11 run the tasks' reference kernels, compiled from solutions/06-atomics/.
// CUB first: the solutions included below define macros (WARPS, TILE) that its headers use as names.
#include <cub/device/device_histogram.cuh>

#include "compact.h"
#include "histogram.h"
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BINS 256
#define BLOCK 256
#define BLOCKS_PER_SM 8
#define FULL_MASK 0xffffffffu
#define INCREMENT_THREADS (1 << 20)

// ======================================================================= CPU reference
static void cpu_histogram(const uint8_t *x, size_t n, unsigned *bins)
{
    memset(bins, 0, BINS * sizeof *bins);
    for (size_t i = 0; i < n; i++)
        bins[x[i]]++;
}

static float cpu_max(const float *x, size_t n)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}

static size_t cpu_kept(const int32_t *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += x[i] >= 0;
    return k;
}

// A compaction is right when it has the right count and the same elements in any order: the
// sums of the elements and of their squares, modulo 2^64, catch a lost or doubled element.
static int compact_matches(const int32_t *in, size_t n, const int32_t *out, size_t count)
{
    uint64_t s1 = 0, s2 = 0, t1 = 0, t2 = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i] >= 0) {
            s1 += (uint64_t)in[i];
            s2 += (uint64_t)in[i] * (uint64_t)in[i];
            k++;
        }
    if (k != count)
        return 0;
    for (size_t i = 0; i < count; i++) {
        t1 += (uint64_t)out[i];
        t2 += (uint64_t)out[i] * (uint64_t)out[i];
    }
    return s1 == t1 && s2 == t2;
}

// ======================================================================= kernels
// Version 1: a read, an add and a write that other threads interleave with: when two threads
// read the same old value, one increment is lost. volatile keeps the compiler from merging them.
static __global__ void increment_racy_v1(volatile unsigned *counter)
{
    *counter = *counter + 1;
}

// Version 2: the same read-modify-write as one indivisible operation at the L2.
static __global__ void increment_atomic_v2(unsigned *counter)
{
    atomicAdd(counter, 1u);
}

// Version 3: every byte is one atomic at one of 256 addresses in global memory: all of the
// GPU's threads queue at the few L2 slices that hold those 1 KiB.
static __global__ void histogram_global_v3(const uint8_t *in, size_t n, unsigned *bins)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[in[i]], 1u);
}

// One byte into the private histogram, but only one lane per distinct value adds: when the
// warp's 32 bytes are equal, 32 conflicting atomics become one.
__device__ static void count_byte_aggregated(unsigned *local, unsigned v)
{
    const unsigned peers = __match_any_sync(__activemask(), v);
    if ((int)(threadIdx.x % 32) == __ffs(peers) - 1)
        atomicAdd(&local[v], (unsigned)__popc(peers));
}

__device__ static void count_word_aggregated(unsigned *local, unsigned w)
{
    count_byte_aggregated(local, w & 0xff);
    count_byte_aggregated(local, (w >> 8) & 0xff);
    count_byte_aggregated(local, (w >> 16) & 0xff);
    count_byte_aggregated(local, w >> 24);
}

// Version 4: a private histogram per block; its atomics stay in the SM. Global atomics only to
// merge: 256 per block instead of one per byte. One byte per thread and load.
static __global__ void histogram_bytes_v4(const uint8_t *in, size_t n, unsigned *bins)
{
    __shared__ unsigned local[BINS];
    if (threadIdx.x < BINS)
        local[threadIdx.x] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    if (threadIdx.x < BINS && local[threadIdx.x])
        atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// Version 5 is version 4 with 16-byte loads: a warp moves 512 bytes per load instruction
// instead of 32. Version 6 is version 5 with the warp's equal bytes counted once.
static __global__ void histogram_warp_v6(const uint8_t *in, size_t n, unsigned *bins)
{
    __shared__ unsigned local[BINS];
    if (threadIdx.x < BINS)
        local[threadIdx.x] = 0;
    __syncthreads();
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *in16 = (const uint4 *)in;
    for (size_t i = tid; i < n / 16; i += stride) {
        const uint4 v = in16[i];
        count_word_aggregated(local, v.x);
        count_word_aggregated(local, v.y);
        count_word_aggregated(local, v.z);
        count_word_aggregated(local, v.w);
    }
    for (size_t i = n / 16 * 16 + tid; i < n; i += stride)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    if (threadIdx.x < BINS && local[threadIdx.x])
        atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// There is no atomicMax for float: build it from atomicCAS. Read, and while the stored value
// is smaller, try to swap ours in; a failed swap returns what another thread stored meanwhile.
__device__ static void atomic_max_float(float *addr, float v)
{
    int *a = (int *)addr;
    int old = *a;
    while (__int_as_float(old) < v) {
        const int assumed = old;
        old = atomicCAS(a, assumed, __float_as_int(v));
        if (old == assumed)
            break;
    }
}

// Version 7: one CAS loop per element on one address.
static __global__ void max_cas_v7(const float *in, size_t n, float *result)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomic_max_float(result, in[i]);
}

// Version 8: the reduction does the work in registers and shuffles; one CAS loop per block.
static __global__ void max_reduce_v8(const float *in, size_t n, float *result)
{
    __shared__ float warp_max[BLOCK / 32];
    float m = -INFINITY;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        m = fmaxf(m, in[i]);
    for (int d = 16; d > 0; d /= 2)
        m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, d));
    if (threadIdx.x % 32 == 0)
        warp_max[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = threadIdx.x < BLOCK / 32 ? warp_max[threadIdx.x] : -INFINITY;
        for (int d = 16; d > 0; d /= 2)
            m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, d));
        if (threadIdx.x == 0)
            atomic_max_float(result, m);
    }
}

// Version 9: the append pattern as written first: one atomic per kept element.
static __global__ void compact_each_v9(const int32_t *in, size_t n, int32_t *out, unsigned *counter)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (in[i] >= 0)
            out[atomicAdd(counter, 1u)] = in[i];
}

// Version 10: the warp votes, one lane reserves room for all its kept lanes, each lane writes at
// its rank among them.
static __global__ void compact_warp_v10(const int32_t *in, size_t n, int32_t *out, unsigned *counter)
{
    const unsigned lane = threadIdx.x % 32;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < n; base += stride) {
        const size_t i = base + threadIdx.x;
        const int32_t v = i < n ? in[i] : -1;
        const unsigned mask = __ballot_sync(FULL_MASK, v >= 0);
        if (!mask)
            continue;
        const int leader = __ffs(mask) - 1;
        unsigned first = 0;
        if ((int)lane == leader)
            first = atomicAdd(counter, (unsigned)__popc(mask));
        first = __shfl_sync(FULL_MASK, first, leader);
        if (v >= 0)
            out[first + __popc(mask & ((1u << lane) - 1))] = v;
    }
}

// Versions 5 and 11 are the graded tasks' reference kernels (histogram_kernel, compact_kernel),
// built from their own files, so that this demo times the very code students are measured
// against. Their namespaces keep the solutions' file-scope names apart from this file's.
// Version 11: the block adds up its warps' ballots in shared memory and reserves its whole run
// with one atomic per tile of 2048 elements (8 per thread).
namespace compact_solution {
#include "../../solutions/06-atomics/compact.cu"
}
namespace histogram_solution {
#include "../../solutions/06-atomics/histogram.cu"
}

// ======================================================================= launchers
typedef struct problem {
    size_t n;
    unsigned grid;       // fills the GPU: BLOCKS_PER_SM blocks of BLOCK threads per SM
    unsigned *counter;   // versions 1, 2, 8, 9
    const uint8_t *bytes; unsigned *bins;            // versions 3-5
    const float *floats; float *max;                 // versions 6, 7
    const int32_t *ints; int32_t *out;               // versions 8, 9
    void *cub_temp; size_t cub_temp_bytes;           // version 12: allocated once, untimed
} problem;

static void run_racy_v1(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemset(p->counter, 0, sizeof(unsigned)));
    increment_racy_v1<<<INCREMENT_THREADS / BLOCK, BLOCK>>>(p->counter);
    CUDA_LAUNCH_CHECK();
}

static void run_atomic_v2(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemset(p->counter, 0, sizeof(unsigned)));
    increment_atomic_v2<<<INCREMENT_THREADS / BLOCK, BLOCK>>>(p->counter);
    CUDA_LAUNCH_CHECK();
}

static void run_hist_global_v3(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned), 0));
    histogram_global_v3<<<p->grid, BLOCK>>>(p->bytes, p->n, p->bins);
    CUDA_LAUNCH_CHECK();
}

static void run_hist_bytes_v4(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned), 0));
    histogram_bytes_v4<<<p->grid, BLOCK>>>(p->bytes, p->n, p->bins);
    CUDA_LAUNCH_CHECK();
}

static void run_hist_shared_v5(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned), 0));
    histogram_solution::histogram_kernel<<<p->grid, BLOCK>>>(p->bytes, p->n, p->bins);
    CUDA_LAUNCH_CHECK();
}

static void run_hist_warp_v6(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->bins, 0, BINS * sizeof(unsigned), 0));
    histogram_warp_v6<<<p->grid, BLOCK>>>(p->bytes, p->n, p->bins);
    CUDA_LAUNCH_CHECK();
}

static void reset_max(problem *p)
{
    const float lowest = -INFINITY;
    CUDA_CHECK(cudaMemcpyAsync(p->max, &lowest, sizeof lowest, cudaMemcpyHostToDevice, 0));
}

static void run_max_cas_v7(void *arg)
{
    problem *p = (problem *)arg;
    reset_max(p);
    max_cas_v7<<<p->grid, BLOCK>>>(p->floats, p->n, p->max);
    CUDA_LAUNCH_CHECK();
}

static void run_max_reduce_v8(void *arg)
{
    problem *p = (problem *)arg;
    reset_max(p);
    max_reduce_v8<<<p->grid, BLOCK>>>(p->floats, p->n, p->max);
    CUDA_LAUNCH_CHECK();
}

static void run_compact_each_v9(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->counter, 0, sizeof(unsigned), 0));
    compact_each_v9<<<p->grid, BLOCK>>>(p->ints, p->n, p->out, p->counter);
    CUDA_LAUNCH_CHECK();
}

static void run_compact_warp_v10(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->counter, 0, sizeof(unsigned), 0));
    compact_warp_v10<<<p->grid, BLOCK>>>(p->ints, p->n, p->out, p->counter);
    CUDA_LAUNCH_CHECK();
}

static void run_compact_block_v11(void *arg)
{
    problem *p = (problem *)arg;
    CUDA_CHECK(cudaMemsetAsync(p->counter, 0, sizeof(unsigned), 0));
    compact_solution::compact_kernel<<<p->grid, BLOCK>>>(p->ints, p->n, p->out, p->counter);
    CUDA_LAUNCH_CHECK();
}

// Versions 12-13: the library's histogram and warp aggregation where it pays.
#include "kernels/12_histogram_more.cuh"

// ======================================================================= the versions
enum group { INCREMENT, HISTOGRAM, MAXIMUM, COMPACT };

typedef struct version {
    lab_demo_version v;
    enum group group;
} version;

static const version versions[] = {
    {{1, "racy", "counter = counter + 1, no atomic", run_racy_v1}, INCREMENT},
    {{2, "atomic", "atomicAdd(counter, 1)", run_atomic_v2}, INCREMENT},
    {{3, "global", "histogram: one global atomicAdd per byte", run_hist_global_v3}, HISTOGRAM},
    {{4, "shared-bytes", "histogram: private per block in shared memory, byte loads", run_hist_bytes_v4}, HISTOGRAM},
    {{5, "shared", "histogram: private per block, 16-byte loads (the task's solution)", run_hist_shared_v5}, HISTOGRAM},
    {{6, "shared+warp", "histogram: as 5 + __match_any_sync aggregation", run_hist_warp_v6}, HISTOGRAM},
    {{7, "cas-each", "float max: atomicCAS loop per element", run_max_cas_v7}, MAXIMUM},
    {{8, "reduce", "float max: shuffles + shared, one atomicCAS per block", run_max_reduce_v8}, MAXIMUM},
    {{9, "each", "compaction: one atomicAdd per kept element", run_compact_each_v9}, COMPACT},
    {{10, "warp", "compaction: one atomicAdd per warp (ballot + popc)", run_compact_warp_v10}, COMPACT},
    {{11, "block", "compaction: one atomicAdd per block and 2048 elements (the solution)", run_compact_block_v11}, COMPACT},
    {{12, "cub", "histogram: cub::DeviceHistogram::HistogramEven, 256 bins", run_hist_cub_v12}, HISTOGRAM},
    {{13, "shared+runs", "histogram: as 5, one vote per load, one atomic per run group", run_hist_runs_v13}, HISTOGRAM},
    {{14, "global+warp", "histogram: as 3, __match_any_sync aggregation of the global atomics", run_hist_global_warp_v14}, HISTOGRAM},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

// ======================================================================= main
typedef struct run_opts {
    const lab_demo *d;
    int reps, warmup;
    double copy_gbps;
} run_opts;

static lab_timing bench(const run_opts *r, const lab_demo_version *v, problem *p)
{
    const lab_bench_opts bo = {r->warmup, r->reps, r->d->opts.flush_l2, NULL};
    return lab_bench(v->fn, p, &bo);
}

static void increment_rows(const run_opts *r, lab_table *t, problem *p)
{
    for (int i = 0; i < N_VERSIONS; i++) {
        const lab_demo_version *v = &versions[i].v;
        if (versions[i].group != INCREMENT || !lab_demo_selected(r->d, v->id))
            continue;
        v->fn(p);
        unsigned got = 0;
        CUDA_CHECK(cudaMemcpy(&got, p->counter, sizeof got, cudaMemcpyDeviceToHost));
        const lab_timing tm = bench(r, v, p);
        char time[32];
        lab_fmt_ms(tm.median_ms, time, sizeof time);
        lab_table_rowf(t, "%d|%s|%d|%u|%u|%s", v->id, v->name, INCREMENT_THREADS, got,
                       INCREMENT_THREADS - got, time);
    }
}

// ms[id]: each measured version's median, for the goals (0 where not measured).
static void histogram_rows(const run_opts *r, lab_table *t, problem *p, uint8_t *h_bytes, uint8_t *d_bytes,
                           const char *input, double *ms)
{
    unsigned expected[BINS], got[BINS];
    CUDA_CHECK(cudaMemcpy(d_bytes, h_bytes, p->n, cudaMemcpyHostToDevice));
    cpu_histogram(h_bytes, p->n, expected);
    double global_ms = 0.0;
    for (int i = 0; i < N_VERSIONS; i++) {
        const lab_demo_version *v = &versions[i].v;
        if (versions[i].group != HISTOGRAM || !lab_demo_selected(r->d, v->id))
            continue;
        CUDA_CHECK(cudaMemset(p->bins, 0xff, sizeof got));
        v->fn(p);
        CUDA_CHECK(cudaMemcpy(got, p->bins, sizeof got, cudaMemcpyDeviceToHost));
        const int ok = memcmp(got, expected, sizeof got) == 0;
        const lab_timing tm = bench(r, v, p);
        ms[v->id] = tm.median_ms;
        if (v->id == 3)
            global_ms = tm.median_ms;
        const double gbps = (double)p->n / (tm.median_ms * 1e6);
        char time[32], pct[32], speedup[32] = "-";
        lab_fmt_ms(tm.median_ms, time, sizeof time);
        lab_fmt_pct(gbps / r->copy_gbps, pct, sizeof pct);
        if (global_ms > 0.0)
            snprintf(speedup, sizeof speedup, "%.1fx", global_ms / tm.median_ms);
        lab_table_rowf(t, "%s|%d|%s|%s|%.0f|%s|%s|%s", input, v->id, v->name, time, gbps, pct,
                       speedup, ok ? "yes" : "NO");
    }
}

// The histogram table: uniform bytes, then one bin, in d_bytes (n bytes); CUB's scratch is
// allocated here, once, before any timed call.
static void histogram_table(lab_demo *d, const run_opts *r, problem *p, uint8_t *h_bytes, uint8_t *d_bytes,
                            size_t n)
{
    static const char *const hist_cols[] = {"input", "version", "name", "time", "GB/s", "% of copy",
                                            "vs global", "correct"};
    double ms_uniform[N_VERSIONS + 1] = {0}, ms_hot[N_VERSIONS + 1] = {0};
    char title[200];
    snprintf(title, sizeof title, "256-bin histogram of %zu MiB of bytes; GB/s = bytes read / time; L2 %s",
             n >> 20, d->opts.flush_l2 ? "cold (flushed before each run)" : "warm (not flushed)");
    lab_table *t = lab_table_new(title, hist_cols, 8);
    p->n = n;
    p->bytes = d_bytes;
    hist_cub_alloc(p, n);
    lab_fill_u8(h_bytes, n, 0, 255, lab_seed_derive(d->opts.seed, "bytes"));
    histogram_rows(r, t, p, h_bytes, d_bytes, "uniform", ms_uniform);
    memset(h_bytes, 42, n);
    histogram_rows(r, t, p, h_bytes, d_bytes, "one bin", ms_hot);
    lab_demo_emit(d, t, "histogram");
    histogram_goals(d, "uniform", ms_uniform);
    histogram_goals(d, "one bin", ms_hot);
    CUDA_CHECK(cudaFree(p->cub_temp));
    p->cub_temp = NULL;
}

static void max_rows(const run_opts *r, lab_table *t, problem *p, float expected)
{
    for (int i = 0; i < N_VERSIONS; i++) {
        const lab_demo_version *v = &versions[i].v;
        if (versions[i].group != MAXIMUM || !lab_demo_selected(r->d, v->id))
            continue;
        v->fn(p);
        float got;
        CUDA_CHECK(cudaMemcpy(&got, p->max, sizeof got, cudaMemcpyDeviceToHost));
        const lab_timing tm = bench(r, v, p);
        const double gbps = (double)p->n * sizeof(float) / (tm.median_ms * 1e6);
        char time[32], pct[32];
        lab_fmt_ms(tm.median_ms, time, sizeof time);
        lab_fmt_pct(gbps / r->copy_gbps, pct, sizeof pct);
        lab_table_rowf(t, "%d|%s|%s|%.0f|%s|%s", v->id, v->name, time, gbps, pct,
                       got == expected ? "yes" : "NO");
    }
}

static void compact_rows(const run_opts *r, lab_table *t, problem *p, const int32_t *h_in, int32_t *h_out)
{
    const size_t want = cpu_kept(h_in, p->n);
    for (int i = 0; i < N_VERSIONS; i++) {
        const lab_demo_version *v = &versions[i].v;
        if (versions[i].group != COMPACT || !lab_demo_selected(r->d, v->id))
            continue;
        v->fn(p);
        unsigned count;
        CUDA_CHECK(cudaMemcpy(&count, p->counter, sizeof count, cudaMemcpyDeviceToHost));
        const size_t shown = count <= p->n ? count : 0;
        CUDA_CHECK(cudaMemcpy(h_out, p->out, shown * sizeof(int32_t), cudaMemcpyDeviceToHost));
        const int ok = count == want && compact_matches(h_in, p->n, h_out, count);
        const lab_timing tm = bench(r, v, p);
        const double gbps = ((double)p->n + (double)want) * sizeof(int32_t) / (tm.median_ms * 1e6);
        char time[32], pct[32];
        lab_fmt_ms(tm.median_ms, time, sizeof time);
        lab_fmt_pct(gbps / r->copy_gbps, pct, sizeof pct);
        lab_table_rowf(t, "%d|%s|%s|%.0f|%s|%s", v->id, v->name, time, gbps, pct,
                       ok ? "yes" : "NO");
    }
}

int main(int argc, char **argv)
{
    lab_demo d = {"06-atomics", "Lesson 06: atomics, contention, privatization, aggregation",
                  LAB_DEMO_REGISTRY(versions)};
    if (!lab_demo_start(&d, argc, argv))
        return d.status;
    const lab_options o = d.opts;
    run_opts r = {&d, o.reps > 0 ? o.reps : 10, o.warmup >= 0 ? o.warmup : 2, lab_ceiling_copy_gbps()};
    char copy[32];
    lab_fmt_rate(r.copy_gbps * 1e9, "B/s", copy, sizeof copy);
    printf("ceiling: device-to-device copy %s (read + write)\n\n", copy);

    const size_t n = o.quick ? ((size_t)16 << 20) : ((size_t)256 << 20);
    problem p;
    memset(&p, 0, sizeof p);
    p.grid = (unsigned)(d.device.sm_count * BLOCKS_PER_SM);
    CUDA_CHECK(cudaMalloc(&p.counter, sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&p.bins, BINS * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&p.max, sizeof(float)));

    static const char *const inc_cols[] = {"version", "name", "threads", "counter", "lost", "time"};
    lab_table *t = lab_table_new("one counter, every thread adds 1", inc_cols, 6);
    increment_rows(&r, t, &p);
    lab_demo_emit(&d, t, "increment");

    // One allocation serves the three inputs in turn: n bytes, n/4 floats, n/4 ints.
    void *d_buf, *d_out;
    CUDA_CHECK(cudaMalloc(&d_buf, n));
    CUDA_CHECK(cudaMalloc(&d_out, n));
    void *h_buf = lab_xmalloc(n), *h_out = lab_xmalloc(n);

    histogram_table(&d, &r, &p, (uint8_t *)h_buf, (uint8_t *)d_buf, n);

    char title[160];
    static const char *const max_cols[] = {"version", "name", "time", "GB/s", "% of copy", "correct"};
    snprintf(title, sizeof title, "largest of %zu M uniform floats in [0, 1)", (n / 4) >> 20);
    t = lab_table_new(title, max_cols, 6);
    p.n = n / sizeof(float);
    p.floats = (const float *)d_buf;
    lab_fill_f32((float *)h_buf, p.n, 0.0f, 1.0f, lab_seed_derive(o.seed, "floats"));
    CUDA_CHECK(cudaMemcpy(d_buf, h_buf, n, cudaMemcpyHostToDevice));
    max_rows(&r, t, &p, cpu_max((const float *)h_buf, p.n));
    lab_demo_emit(&d, t, "max");

    static const char *const compact_cols[] = {"version", "name", "time", "GB/s", "% of copy", "correct"};
    snprintf(title, sizeof title, "compaction of %zu M ints, half kept; GB/s = (read + kept written) / time",
             (n / 4) >> 20);
    t = lab_table_new(title, compact_cols, 6);
    p.n = n / sizeof(int32_t);
    p.ints = (const int32_t *)d_buf;
    p.out = (int32_t *)d_out;
    lab_fill_i32((int32_t *)h_buf, p.n, -1000000, 999999, lab_seed_derive(o.seed, "ints"));
    CUDA_CHECK(cudaMemcpy(d_buf, h_buf, n, cudaMemcpyHostToDevice));
    compact_rows(&r, t, &p, (const int32_t *)h_buf, (int32_t *)h_out);
    lab_demo_emit(&d, t, "compact");

    CUDA_CHECK(cudaFree(d_buf));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(p.counter));
    CUDA_CHECK(cudaFree(p.bins));
    CUDA_CHECK(cudaFree(p.max));
    free(h_buf);
    free(h_out);
    return d.status;
}

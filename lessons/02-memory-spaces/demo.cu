// Lesson 02 demo: the memory spaces measured on today's GPU. Latency of each space by pointer
// chasing, the seed lecture's offsetCopy and strideCopy swept, shared-memory bank conflicts,
// a transpose that needs shared memory to be coalesced, and constant memory's broadcast.
//
//   make build/lessons/02-memory-spaces/demo && build/lessons/02-memory-spaces/demo [VERSION...]
//   --quick: small sizes (seconds); --csv DIR: each table as DIR/02-memory-spaces_<table>.csv
//   make bench draws the offset and stride sweeps (lessons/02-memory-spaces/plot.gp).
//
// version 1:  latency of registers, shared, constant, L1, local, L2, DRAM by pointer chasing  ./demo 1
// version 2:  offsetCopy, offset 0..32 floats: misaligned warps                               ./demo 2
// version 3:  strideCopy, stride 1..32 floats: sectors fetched for nothing                    ./demo 3
// version 4:  one warp reads shared words `stride` apart: gcd(stride, 32)-way conflicts     ./demo 4
// version 5:  transpose, one thread per element: reads coalesced, writes 32 rows apart        ./demo 5
// version 6:  transpose through a 32x32 shared tile: both coalesced, 32-way bank conflicts    ./demo 6
// version 7:  transpose through a 32x33 shared tile: both coalesced, no conflicts             ./demo 7
// version 8:  __constant__ table, every lane of a warp reads the same word                    ./demo 8
// version 9:  global table, every lane of a warp reads the same word                          ./demo 9
// version 10: __constant__ table, the 32 lanes read 32 different words                        ./demo 10
// version 11: global table, the 32 lanes read 32 different (consecutive) words                ./demo 11
//
// Bandwidths are bytes read + written per second and are read against the device-to-device copy
// ceiling measured in the same run; latencies come in SM clock cycles (clock64) and in ns (events).
// Version 7 is the transpose task's reference solution, compiled from its own file.
#include "lab.h"
#include "transpose.h"

#include <stdlib.h>
#include <string.h>

#define LINE_BYTES 128      // one L1 line: the chase visits one element per line
#define LOCAL_WORDS 256     // per-thread array of the local-memory chase
#define SHARED_WORDS 4096   // 16 KiB shared chase
#define CONST_WORDS 256     // 1 KiB constant chase, also the broadcast table of versions 8-11
#define BANK_WORDS 1024     // enough for 32 lanes at stride 32 (31 * 33 < 1024)
#define TILE 32
#define TILE_ROWS 8
#define BROADCAST_ITERS 4096

static_assert(31 * 33 < BANK_WORDS, "the largest bank-probe stride must fit the shared array");

// ======================================================================= CPU reference
// A random cyclic order of m items (Sattolo's algorithm): following next[] from any item visits
// all m before returning, in an order no prefetcher can guess.
static void random_cycle(unsigned *next, unsigned m, uint64_t seed)
{
    unsigned *order = (unsigned *)malloc((size_t)m * sizeof *order);
    if (!order) {
        fprintf(stderr, "error: out of host memory\n");
        exit(LAB_EXIT_CUDA);
    }
    lab_rng r;
    lab_rng_seed(&r, seed);
    for (unsigned i = 0; i < m; ++i) order[i] = i;
    for (unsigned i = m - 1; i > 0; --i) {
        const unsigned j = (unsigned)lab_rng_below(&r, i); // j < i: one cycle, never a fixed point
        const unsigned t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (unsigned i = 0; i < m; ++i) next[order[i]] = order[(i + 1) % m];
    free(order);
}

static unsigned gcd_u(unsigned a, unsigned b)
{
    while (b) {
        const unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void transpose_cpu(const float *in, float *out, unsigned rows, unsigned cols)
{
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

// ======================================================================= kernels
// --- latency: one thread, each access's address is the value the previous access returned, so
// nothing overlaps and (t1 - t0) / hops is the latency of one access. A first untimed pass puts
// the working set where the timed pass is meant to find it.

// Registers: a chain of dependent FMAs; the latency of the ALU pipeline is the register "access".
static __global__ void chase_register(float seed_value, int hops, float *sink, long long *cycles)
{
    float x = seed_value;
    const long long t0 = clock64();
    for (int h = 0; h < hops; ++h) x = fmaf(x, 0.999f, 0.001f);
    const long long t1 = clock64();
    *sink = x;
    *cycles = t1 - t0;
}

// Global memory: each element holds the address of the next. L2_ONLY loads with __ldcg (cache at
// L2, not L1); otherwise __ldca (cache at every level) so that a small set is served by L1.
template <bool L2_ONLY>
static __global__ void chase_global(const unsigned long long *start, int hops,
                                    unsigned long long *sink, long long *cycles)
{
    const unsigned long long *p = start;
    for (int h = 0; h < hops; ++h)
        p = (const unsigned long long *)(L2_ONLY ? __ldcg(p) : __ldca(p));
    const long long t0 = clock64();
    for (int h = 0; h < hops; ++h)
        p = (const unsigned long long *)(L2_ONLY ? __ldcg(p) : __ldca(p));
    const long long t1 = clock64();
    *sink = (unsigned long long)p;
    *cycles = t1 - t0;
}

// Shared memory: the chain holds byte offsets into the array, so each hop is one LDS.
static __global__ void chase_shared(const unsigned *chain, int hops, unsigned *sink, long long *cycles)
{
    __shared__ unsigned s_chain[SHARED_WORDS];
    for (int k = threadIdx.x; k < SHARED_WORDS; k += blockDim.x) s_chain[k] = chain[k];
    __syncthreads();
    if (threadIdx.x != 0) return;
    const char *base = (const char *)s_chain;
    unsigned off = 0;
    for (int h = 0; h < hops; ++h) off = *(const unsigned *)(base + off);
    const long long t0 = clock64();
    for (int h = 0; h < hops; ++h) off = *(const unsigned *)(base + off);
    const long long t1 = clock64();
    *sink = off;
    *cycles = t1 - t0;
}

static __constant__ unsigned c_table[CONST_WORDS];

// Constant memory: byte offsets again; one thread, so every read is uniform (one address).
static __global__ void chase_constant(int hops, unsigned *sink, long long *cycles)
{
    const char *base = (const char *)c_table;
    unsigned off = 0;
    for (int h = 0; h < hops; ++h) off = *(const unsigned *)(base + off);
    const long long t0 = clock64();
    for (int h = 0; h < hops; ++h) off = *(const unsigned *)(base + off);
    const long long t1 = clock64();
    *sink = off;
    *cycles = t1 - t0;
}

// Local memory: an automatic array indexed by a run-time value cannot live in registers, so the
// compiler places it in local memory: per-thread, but physically in DRAM, cached in L1 and L2.
static __global__ void chase_local(const unsigned *chain, int hops, unsigned *sink, long long *cycles)
{
    unsigned buf[LOCAL_WORDS];
    for (int k = 0; k < LOCAL_WORDS; ++k) buf[k] = chain[k];
    unsigned j = 0;
    for (int h = 0; h < hops; ++h) j = buf[j];
    const long long t0 = clock64();
    for (int h = 0; h < hops; ++h) j = buf[j];
    const long long t1 = clock64();
    *sink = j;
    *cycles = t1 - t0;
}

// --- the seed's copies. offsetCopy: a warp's 32 floats start `offset` floats past a 128-byte
// boundary and straddle two lines (five 32-byte sectors instead of four) unless offset % 32 == 0.
static __global__ void offset_copy(float *out, const float *in, unsigned offset)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x + offset;
    out[i] = in[i];
}

// strideCopy: a warp's 32 floats lie `stride` floats apart; past stride 8 each one needs its own
// 32-byte sector, of which 4 bytes are used.
static __global__ void stride_copy(float *out, const float *in, unsigned stride)
{
    const size_t i = (size_t)(blockIdx.x * blockDim.x + threadIdx.x) * stride;
    out[i] = in[i];
}

// --- bank conflicts: one warp, dependent loads from word lane * stride. The array holds zeros,
// so the address never changes, but the compiler cannot know it and must wait for each load.
static __global__ void bank_probe(unsigned stride, int iters, unsigned *sink, long long *cycles)
{
    __shared__ unsigned s_words[BANK_WORDS];
    for (int k = threadIdx.x; k < BANK_WORDS; k += blockDim.x) s_words[k] = 0;
    __syncthreads();
    const unsigned base = threadIdx.x * stride;
    unsigned v = 0;
    for (int k = 0; k < iters; ++k) v = s_words[base + v];
    const long long t0 = clock64();
    for (int k = 0; k < iters; ++k) v = s_words[base + v];
    const long long t1 = clock64();
    sink[threadIdx.x] = v;
    if (threadIdx.x == 0) *cycles = t1 - t0;
}

// --- transpose. Version 5: threadIdx.x walks the input's columns: reads are one line per warp,
// writes land in 32 different output rows, 32 sectors per warp store.
static __global__ void transpose_naive_v5(const float *in, float *out, unsigned rows, unsigned cols)
{
    const unsigned c = blockIdx.x * TILE + threadIdx.x;
    const unsigned r0 = blockIdx.y * TILE + threadIdx.y;
    if (c >= cols) return;
    for (unsigned j = 0; j < TILE; j += TILE_ROWS)
        if (r0 + j < rows) out[c * rows + r0 + j] = in[(r0 + j) * cols + c];
}

// Versions 6-7: the tile turns a column into a row, so the writes are coalesced too. Version 7
// is the task's reference solution (below); version 6 is the same kernel without the tile's
// padding column: a warp reading tile column x touches words 32·i + x, all in bank x, 32 replays.
// The padding spreads them over the 32 banks.
static __global__ void transpose_conflicts_v6(const float *in, float *out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE];
    const unsigned c = blockIdx.x * TILE + threadIdx.x;
    const unsigned r0 = blockIdx.y * TILE + threadIdx.y;
    if (c < cols)
        for (unsigned j = 0; j < TILE; j += TILE_ROWS)
            if (r0 + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(r0 + j) * cols + c];
    // Threads read tile entries that other warps wrote.
    __syncthreads();
    const unsigned oc = blockIdx.y * TILE + threadIdx.x;
    const unsigned or0 = blockIdx.x * TILE + threadIdx.y;
    if (oc < rows)
        for (unsigned j = 0; j < TILE; j += TILE_ROWS)
            if (or0 + j < cols) out[(or0 + j) * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
}

// The graded task's reference solution, built from its own file, so that version 7 times the
// very code a student's transpose is measured against. The namespace keeps the solution's
// file-scope names apart from this file's.
namespace transpose_solution {
#include "../../solutions/02-memory-spaces/transpose.cu"
}

// --- broadcast. Each thread adds BROADCAST_ITERS table words; lane L of iteration k reads word
// (k + L · spread) % 256. spread = 0: one address per warp; spread = 1: 32 addresses. Both are run
// time values, so the four versions run the same instructions and differ only in where the words
// are and how many addresses a warp asks for at once.
static __global__ void broadcast_constant(unsigned spread, float *out)
{
    const unsigned lane = threadIdx.x % 32;
    float acc = 0.0f;
    for (unsigned k = 0; k < BROADCAST_ITERS; ++k)
        acc += __uint_as_float(c_table[(k + lane * spread) % CONST_WORDS]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static __global__ void broadcast_global(const unsigned *table, unsigned spread, float *out)
{
    const unsigned lane = threadIdx.x % 32;
    float acc = 0.0f;
    for (unsigned k = 0; k < BROADCAST_ITERS; ++k)
        acc += __uint_as_float(table[(k + lane * spread) % CONST_WORDS]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ======================================================================= launchers
typedef struct demo_ctx {
    int quick, reps, warmup, flush_l2;
    uint64_t seed;
    double copy_gbps;
    lab_device_info info;
    lab_table *table; // the table of the group being measured
    int wrong;        // versions whose result was wrong
} demo_ctx;

static lab_timing bench(const demo_ctx *c, lab_bench_fn fn, void *arg)
{
    lab_bench_opts bo = {c->warmup, c->reps, c->flush_l2, NULL};
    return lab_bench(fn, arg, &bo);
}

// The latency kernels run once each: the clock64 difference is the measurement, and the event
// time of the same launch (two passes of `hops`) gives it in nanoseconds.
typedef struct latency {
    double cycles, ns;
} latency;

static latency finish_latency(lab_timer *t, const long long *d_cycles, int hops)
{
    const float ms = lab_timer_stop(t);
    long long cycles;
    CUDA_CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    latency l = {(double)cycles / hops, ms * 1e6 / (2.0 * hops)};
    return l;
}

// A chain of 64-bit addresses over `bytes` of device memory, one element per 128-byte line.
static unsigned long long *make_global_chain(size_t bytes, uint64_t seed)
{
    const unsigned m = (unsigned)(bytes / LINE_BYTES);
    const size_t stride = LINE_BYTES / sizeof(unsigned long long);
    unsigned long long *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    unsigned long long *h = (unsigned long long *)calloc(bytes, 1);
    unsigned *next = (unsigned *)malloc((size_t)m * sizeof *next);
    if (!h || !next) {
        fprintf(stderr, "error: out of host memory\n");
        exit(LAB_EXIT_CUDA);
    }
    random_cycle(next, m, seed);
    for (unsigned i = 0; i < m; ++i) h[(size_t)i * stride] = (unsigned long long)(d + (size_t)next[i] * stride);
    CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    free(next);
    free(h);
    return d;
}

static latency measure_global(size_t bytes, int l2_only, int hops, uint64_t seed)
{
    unsigned long long *chain = make_global_chain(bytes, seed);
    unsigned long long *d_sink;
    long long *d_cycles;
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof *d_sink));
    CUDA_CHECK(cudaMalloc(&d_cycles, sizeof *d_cycles));
    lab_timer t;
    lab_timer_init(&t, 0);
    lab_timer_start(&t);
    if (l2_only)
        chase_global<true><<<1, 1>>>(chain, hops, d_sink, d_cycles);
    else
        chase_global<false><<<1, 1>>>(chain, hops, d_sink, d_cycles);
    CUDA_LAUNCH_CHECK();
    const latency l = finish_latency(&t, d_cycles, hops);
    lab_timer_destroy(&t);
    CUDA_CHECK(cudaFree(chain));
    CUDA_CHECK(cudaFree(d_sink));
    CUDA_CHECK(cudaFree(d_cycles));
    return l;
}

// Byte offsets (kind 1) or word indices (kind 0) of a random cycle over `words` 4-byte words.
static unsigned *make_word_chain(unsigned words, int byte_offsets, uint64_t seed)
{
    unsigned *h = (unsigned *)malloc((size_t)words * sizeof *h);
    if (!h) {
        fprintf(stderr, "error: out of host memory\n");
        exit(LAB_EXIT_CUDA);
    }
    random_cycle(h, words, seed);
    if (byte_offsets)
        for (unsigned i = 0; i < words; ++i) h[i] *= sizeof(unsigned);
    return h;
}

enum on_chip { CHASE_REGISTER, CHASE_SHARED, CHASE_CONSTANT, CHASE_LOCAL };

static latency measure_on_chip(enum on_chip kind, int hops, uint64_t seed)
{
    const unsigned words = kind == CHASE_SHARED ? SHARED_WORDS : kind == CHASE_LOCAL ? LOCAL_WORDS : CONST_WORDS;
    unsigned *h_chain = make_word_chain(words, kind != CHASE_LOCAL, seed);
    unsigned *d_chain, *d_sink;
    long long *d_cycles;
    CUDA_CHECK(cudaMalloc(&d_chain, (size_t)words * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof(float) + sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_cycles, sizeof *d_cycles));
    CUDA_CHECK(cudaMemcpy(d_chain, h_chain, (size_t)words * sizeof(unsigned), cudaMemcpyHostToDevice));
    if (kind == CHASE_CONSTANT)
        CUDA_CHECK(cudaMemcpyToSymbol(c_table, h_chain, (size_t)words * sizeof(unsigned)));
    lab_timer t;
    lab_timer_init(&t, 0);
    lab_timer_start(&t);
    switch (kind) {
    case CHASE_REGISTER: chase_register<<<1, 1>>>(0.5f, 2 * hops, (float *)d_sink, d_cycles); break;
    case CHASE_SHARED: chase_shared<<<1, 256>>>(d_chain, hops, d_sink, d_cycles); break;
    case CHASE_CONSTANT: chase_constant<<<1, 1>>>(hops, d_sink, d_cycles); break;
    case CHASE_LOCAL: chase_local<<<1, 1>>>(d_chain, hops, d_sink, d_cycles); break;
    }
    CUDA_LAUNCH_CHECK();
    latency l = finish_latency(&t, d_cycles, hops);
    // The register chain has no warm-up pass: its 2·hops FMAs are all timed.
    if (kind == CHASE_REGISTER) l.cycles /= 2.0;
    lab_timer_destroy(&t);
    free(h_chain);
    CUDA_CHECK(cudaFree(d_chain));
    CUDA_CHECK(cudaFree(d_sink));
    CUDA_CHECK(cudaFree(d_cycles));
    return l;
}

static void run_latency_v1(void *arg)
{
    const demo_ctx *c = (const demo_ctx *)arg;
    lab_table *t = c->table;
    const int scale = c->quick ? 16 : 1;
    const size_t l2 = c->info.l2_bytes ? c->info.l2_bytes : (size_t)50 << 20;
    const size_t l2_set = l2 / 8;               // well inside the L2
    const size_t dram_set = (size_t)256 << 20;  // over four times the 60 MiB L2 of an H200
    char l2_txt[32], dram_txt[32];
    snprintf(l2_txt, sizeof l2_txt, "%zu KiB", l2_set >> 10);
    snprintf(dram_txt, sizeof dram_txt, "%zu MiB", dram_set >> 20);
    struct row {
        const char *space, *set, *how, *lecture;
        latency l;
    } rows[] = {
        {"register", "-", "dependent FFMA chain", "~1",
         measure_on_chip(CHASE_REGISTER, (1 << 20) / scale, c->seed)},
        {"shared", "16 KiB", "LDS chain", "~5",
         measure_on_chip(CHASE_SHARED, (1 << 20) / scale, lab_seed_derive(c->seed, "shared"))},
        {"constant", "1 KiB", "LDC chain, uniform", "~5 (cached)",
         measure_on_chip(CHASE_CONSTANT, (1 << 20) / scale, lab_seed_derive(c->seed, "constant"))},
        {"global, L1 hit", "16 KiB", "__ldca chain", "-",
         measure_global((size_t)16 << 10, 0, (1 << 20) / scale, lab_seed_derive(c->seed, "l1"))},
        {"local", "1 KiB", "indexed local array", "(global)",
         measure_on_chip(CHASE_LOCAL, (1 << 20) / scale, lab_seed_derive(c->seed, "local"))},
        {"global, L2 hit", l2_txt, "__ldcg chain", "-",
         measure_global(l2_set, 1, (1 << 18) / scale, lab_seed_derive(c->seed, "l2"))},
        {"global, DRAM", dram_txt, "__ldcg chain", "~500",
         measure_global(dram_set, 1, (1 << 15) / scale, lab_seed_derive(c->seed, "dram"))},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; ++i)
        lab_table_rowf(t, "%s|%s|%s|%.1f|%.1f|%s", rows[i].space, rows[i].set, rows[i].how,
                       rows[i].l.cycles, rows[i].l.ns, rows[i].lecture);
}

typedef struct copy_problem {
    float *in, *out;
    unsigned threads;
    unsigned param; // offset or stride
    int stride;     // 1: stride_copy, 0: offset_copy
} copy_problem;

static void run_copy(void *arg)
{
    copy_problem *p = (copy_problem *)arg;
    if (p->stride)
        stride_copy<<<p->threads / 256, 256>>>(p->out, p->in, p->param);
    else
        offset_copy<<<p->threads / 256, 256>>>(p->out, p->in, p->param);
    CUDA_LAUNCH_CHECK();
}

// Copies `threads` floats, one per thread, for each offset or stride in [first, last]; a row per
// value with the effective bandwidth: the bytes the program asked for, read + written.
static void sweep_copy(const demo_ctx *c, int stride, unsigned first, unsigned last)
{
    lab_table *t = c->table;
    copy_problem p;
    p.threads = stride ? (c->quick ? 1u << 18 : 1u << 22) : (c->quick ? 1u << 20 : 1u << 25);
    p.stride = stride;
    const size_t elems = stride ? (size_t)p.threads * last : (size_t)p.threads + last;
    CUDA_CHECK(cudaMalloc(&p.in, elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.out, elems * sizeof(float)));
    CUDA_CHECK(cudaMemset(p.in, 0, elems * sizeof(float)));
    for (unsigned v = first; v <= last; ++v) {
        p.param = v;
        const lab_timing tm = bench(c, run_copy, &p);
        const double gbps = 2.0 * p.threads * sizeof(float) / (tm.median_ms * 1e6);
        lab_table_rowf(t, "%u|%.4f|%.1f|%.1f", v, tm.median_ms, gbps, 100.0 * gbps / c->copy_gbps);
    }
    CUDA_CHECK(cudaFree(p.in));
    CUDA_CHECK(cudaFree(p.out));
}

static void run_offset_v2(void *arg)
{
    sweep_copy((const demo_ctx *)arg, 0, 0, 32);
}

static void run_stride_v3(void *arg)
{
    sweep_copy((const demo_ctx *)arg, 1, 1, 32);
}

static void run_banks_v4(void *arg)
{
    const demo_ctx *c = (const demo_ctx *)arg;
    lab_table *t = c->table;
    static const unsigned strides[] = {1, 2, 3, 4, 8, 16, 17, 32, 33};
    const int iters = c->quick ? 1 << 12 : 1 << 16;
    unsigned *d_sink;
    long long *d_cycles;
    CUDA_CHECK(cudaMalloc(&d_sink, 32 * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
    double base = 0.0;
    for (size_t i = 0; i < sizeof strides / sizeof *strides; ++i) {
        bank_probe<<<1, 32>>>(strides[i], iters, d_sink, d_cycles);
        CUDA_LAUNCH_CHECK();
        long long cycles;
        CUDA_CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
        const double per = (double)cycles / iters;
        if (i == 0) base = per;
        lab_table_rowf(t, "%u|%u|%.1f|%.2f", strides[i], gcd_u(strides[i], 32), per, per / base);
    }
    CUDA_CHECK(cudaFree(d_sink));
    CUDA_CHECK(cudaFree(d_cycles));
}

typedef struct transpose_problem {
    const float *in;
    float *out;
    unsigned rows, cols;
} transpose_problem;

static void run_transpose_naive_v5(void *arg)
{
    transpose_problem *p = (transpose_problem *)arg;
    const dim3 grid((p->cols + TILE - 1) / TILE, (p->rows + TILE - 1) / TILE);
    transpose_naive_v5<<<grid, dim3(TILE, TILE_ROWS)>>>(p->in, p->out, p->rows, p->cols);
    CUDA_LAUNCH_CHECK();
}

static void run_transpose_conflicts_v6(void *arg)
{
    transpose_problem *p = (transpose_problem *)arg;
    const dim3 grid((p->cols + TILE - 1) / TILE, (p->rows + TILE - 1) / TILE);
    transpose_conflicts_v6<<<grid, dim3(TILE, TILE_ROWS)>>>(p->in, p->out, p->rows, p->cols);
    CUDA_LAUNCH_CHECK();
}

static void run_transpose_padded_v7(void *arg)
{
    transpose_problem *p = (transpose_problem *)arg;
    transpose_solution::transpose(p->in, p->out, p->rows, p->cols);
}

// One transpose version, checked and then timed: a row of the table; c->wrong counts it if wrong.
static void run_transpose(demo_ctx *c, int id, const char *name, lab_bench_fn fn)
{
    transpose_problem p;
    p.rows = p.cols = c->quick ? 2048 : 8192;
    const size_t count = (size_t)p.rows * p.cols, bytes = count * sizeof(float);
    float *h_in = (float *)malloc(bytes), *h_want = (float *)malloc(bytes), *h_got = (float *)malloc(bytes);
    if (!h_in || !h_want || !h_got) {
        fprintf(stderr, "error: out of host memory\n");
        exit(LAB_EXIT_CUDA);
    }
    lab_fill_f32(h_in, count, -1.0f, 1.0f, lab_seed_derive(c->seed, "transpose"));
    transpose_cpu(h_in, h_want, p.rows, p.cols);
    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xFF, bytes));
    p.in = d_in;
    p.out = d_out;
    fn(&p);
    CUDA_CHECK(cudaMemcpy(h_got, d_out, bytes, cudaMemcpyDeviceToHost));
    const int ok = memcmp(h_got, h_want, bytes) == 0;
    const lab_timing tm = bench(c, fn, &p);
    const double gbps = 2.0 * bytes / (tm.median_ms * 1e6);
    char time[32], pct[32];
    lab_fmt_ms(tm.median_ms, time, sizeof time);
    lab_fmt_pct(gbps / c->copy_gbps, pct, sizeof pct);
    lab_table_rowf(c->table, "%d|%s|%ux%u|%s|%.1f|%s|%s", id, name, p.rows, p.cols, time, gbps, pct,
                   ok ? "ok" : "WRONG");
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_want);
    free(h_got);
    c->wrong += !ok;
}

static void run_transpose_v5(void *arg)
{
    run_transpose((demo_ctx *)arg, 5, "naive", run_transpose_naive_v5);
}

static void run_transpose_v6(void *arg)
{
    run_transpose((demo_ctx *)arg, 6, "tile 32x32", run_transpose_conflicts_v6);
}

static void run_transpose_v7(void *arg)
{
    run_transpose((demo_ctx *)arg, 7, "tile 32x33", run_transpose_padded_v7);
}

typedef struct broadcast_problem {
    const unsigned *table; // NULL: read c_table
    unsigned spread;
    unsigned blocks;
    float *out;
} broadcast_problem;

static void run_broadcast(void *arg)
{
    broadcast_problem *p = (broadcast_problem *)arg;
    if (p->table)
        broadcast_global<<<p->blocks, 256>>>(p->table, p->spread, p->out);
    else
        broadcast_constant<<<p->blocks, 256>>>(p->spread, p->out);
    CUDA_LAUNCH_CHECK();
}

// The table holds the floats 1, 2, ..., 256 (as bits): every sum below is an exact integer.
static void run_broadcast_version(demo_ctx *c, int id, const char *name,
                                 int global, unsigned spread)
{
    unsigned h_table[CONST_WORDS];
    for (unsigned k = 0; k < CONST_WORDS; ++k) {
        const float v = (float)(k + 1);
        memcpy(&h_table[k], &v, sizeof v);
    }
    CUDA_CHECK(cudaMemcpyToSymbol(c_table, h_table, sizeof h_table));
    broadcast_problem p;
    p.spread = spread;
    p.blocks = (unsigned)c->info.sm_count * (c->quick ? 2 : 8); // 8 blocks of 256: full SMs
    unsigned *d_table = NULL;
    const size_t threads = (size_t)p.blocks * 256;
    CUDA_CHECK(cudaMalloc(&p.out, threads * sizeof(float)));
    if (global) {
        CUDA_CHECK(cudaMalloc(&d_table, sizeof h_table));
        CUDA_CHECK(cudaMemcpy(d_table, h_table, sizeof h_table, cudaMemcpyHostToDevice));
    }
    p.table = d_table;
    run_broadcast(&p);
    float *h_out = (float *)malloc(threads * sizeof(float));
    if (!h_out) {
        fprintf(stderr, "error: out of host memory\n");
        exit(LAB_EXIT_CUDA);
    }
    CUDA_CHECK(cudaMemcpy(h_out, p.out, threads * sizeof(float), cudaMemcpyDeviceToHost));
    // 4096 reads cycle through all 256 words 16 times, whatever the lane's starting point.
    const float want = 16.0f * (256.0f * 257.0f / 2.0f);
    int ok = 1;
    for (size_t i = 0; i < threads; ++i) ok &= h_out[i] == want;
    const lab_timing tm = bench(c, run_broadcast, &p);
    const double warp_reads = (double)threads / 32 * BROADCAST_ITERS;
    const double per_sm_ns = tm.median_ms * 1e6 / (warp_reads / c->info.sm_count);
    char time[32];
    lab_fmt_ms(tm.median_ms, time, sizeof time);
    lab_table_rowf(c->table, "%d|%s|%s|%u|%s|%.3f|%s", id, name, global ? "global" : "constant",
                   spread ? 32u : 1u, time, per_sm_ns, ok ? "ok" : "WRONG");
    free(h_out);
    CUDA_CHECK(cudaFree(p.out));
    if (d_table) CUDA_CHECK(cudaFree(d_table));
    c->wrong += !ok;
}

static void run_const_uniform_v8(void *arg)
{
    run_broadcast_version((demo_ctx *)arg, 8, "constant, uniform", 0, 0);
}

static void run_global_uniform_v9(void *arg)
{
    run_broadcast_version((demo_ctx *)arg, 9, "global, uniform", 1, 0);
}

static void run_const_divergent_v10(void *arg)
{
    run_broadcast_version((demo_ctx *)arg, 10, "constant, 32 addresses", 0, 1);
}

static void run_global_divergent_v11(void *arg)
{
    run_broadcast_version((demo_ctx *)arg, 11, "global, 32 addresses", 1, 1);
}

// ======================================================================= the versions
enum group_id { GROUP_LATENCY, GROUP_OFFSET, GROUP_STRIDE, GROUP_BANKS, GROUP_TRANSPOSE, GROUP_CONSTANT, N_GROUPS };

typedef struct group {
    const char *table; // CSV name suffix: 02-memory-spaces_<table>.csv (plot.gp reads offset, stride)
    const char *title;
    const char *const *cols;
    size_t ncols;
} group;

static const char *const latency_cols[] = {"memory", "working set", "access", "cycles", "ns",
                                           "lecture (cycles)"};
static const char *const offset_cols[] = {"offset", "ms", "GB/s", "% of copy"};
static const char *const stride_cols[] = {"stride", "ms", "GB/s", "% of copy"};
static const char *const bank_cols[] = {"stride (words)", "ways", "cycles per access", "x stride 1"};
static const char *const transpose_cols[] = {"version", "name", "size", "time", "GB/s", "% of copy", "check"};
static const char *const constant_cols[] = {"version", "name", "memory", "addresses per warp",
                                            "time", "ns per warp read per SM", "check"};

#define COLS(a) a, sizeof a / sizeof *a
static const group groups[N_GROUPS] = {
    {"latency", "Latency of one access, one thread, dependent chain", COLS(latency_cols)},
    {"offset", "offsetCopy: 32 floats per warp, starting `offset` floats past a 128-byte line", COLS(offset_cols)},
    {"stride", "strideCopy: 32 floats per warp, `stride` floats apart (effective bandwidth)", COLS(stride_cols)},
    {"banks", "Shared memory: one warp reads word lane*stride, dependent loads", COLS(bank_cols)},
    {"transpose", "Transpose, rows x cols floats, read + written bytes", COLS(transpose_cols)},
    {"constant", "Table reads: constant vs global, one or 32 addresses per warp", COLS(constant_cols)},
};

typedef struct version {
    lab_demo_version v;
    enum group_id group;
} version;

static const version versions[] = {
    {{1, "latency", "pointer chase in every memory space", run_latency_v1}, GROUP_LATENCY},
    {{2, "offset", "offsetCopy, offset 0..32 floats", run_offset_v2}, GROUP_OFFSET},
    {{3, "stride", "strideCopy, stride 1..32 floats", run_stride_v3}, GROUP_STRIDE},
    {{4, "banks", "shared-memory reads at word strides 1..33", run_banks_v4}, GROUP_BANKS},
    {{5, "transpose-naive", "one thread per element, writes 32 rows apart", run_transpose_v5}, GROUP_TRANSPOSE},
    {{6, "transpose-tile", "32x32 shared tile: coalesced, 32-way bank conflicts", run_transpose_v6}, GROUP_TRANSPOSE},
    {{7, "transpose-padded", "32x33 shared tile: coalesced, conflict-free (the task's solution)", run_transpose_v7}, GROUP_TRANSPOSE},
    {{8, "const-uniform", "__constant__ table, one address per warp", run_const_uniform_v8}, GROUP_CONSTANT},
    {{9, "global-uniform", "global table, one address per warp", run_global_uniform_v9}, GROUP_CONSTANT},
    {{10, "const-divergent", "__constant__ table, 32 addresses per warp", run_const_divergent_v10}, GROUP_CONSTANT},
    {{11, "global-divergent", "global table, 32 consecutive addresses per warp", run_global_divergent_v11}, GROUP_CONSTANT},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

// ======================================================================= main
int main(int argc, char **argv)
{
    lab_demo d = {"02-memory-spaces", "Lesson 02: the memory spaces, measured", LAB_DEMO_REGISTRY(versions)};
    if (!lab_demo_start(&d, argc, argv)) return d.status;
    const lab_options o = d.opts;

    demo_ctx c;
    memset(&c, 0, sizeof c);
    c.info = d.device;
    c.quick = o.quick;
    c.reps = o.reps > 0 ? o.reps : (o.quick ? 3 : 10);
    c.warmup = o.warmup >= 0 ? o.warmup : 1;
    c.flush_l2 = o.flush_l2;
    c.seed = o.seed;
    c.copy_gbps = lab_ceiling_copy_gbps();
    printf("device-to-device copy ceiling: %.0f GB/s (read + written)\n\n", c.copy_gbps);

    for (int g = 0; g < N_GROUPS; ++g) {
        c.table = NULL;
        for (int v = 0; v < N_VERSIONS; ++v) {
            const lab_demo_version *ver = &versions[v].v;
            if (versions[v].group != g || !lab_demo_selected(&d, ver->id)) continue;
            if (!c.table) c.table = lab_table_new(groups[g].title, groups[g].cols, groups[g].ncols);
            fprintf(stderr, "\r  measuring version %d...   ", ver->id);
            ver->fn(&c);
        }
        fprintf(stderr, "\r%40s\r", "");
        if (c.table) lab_demo_emit(&d, c.table, groups[g].table);
    }
    if (c.wrong) lab_demo_fail(&d, LAB_EXIT_FAIL);
    return d.status;
}

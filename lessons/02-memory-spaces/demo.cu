// Lesson 02 demo: the memory spaces measured on today's GPU. Latency of each space by pointer
// chasing, the Spanish lecture's offsetCopy and strideCopy swept, shared-memory bank conflicts,
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
// version 12: transpose, 64x64 swizzled tile, float4 loads and stores, 256 threads            ./demo 12
// version 13: as 12, 128x128 tile in 64 KiB of dynamic shared memory, 512 threads             ./demo 13
// version 14: as 12 with streaming cache hints: loads and stores evict-first (.cs)            ./demo 14
//
// Bandwidths are bytes read + written per second and are read against the device-to-device copy
// ceiling measured in the same run; latencies come in SM clock cycles (clock64) and in ns (events).
// Version 7 is the transpose task's reference solution, compiled from its own file. Versions
// 12-14, the transpose's top rungs, are rows of the transpose table after version 7; the goal
// line after that table is the best of them at 8192^2 against the copy ceiling (>= 95 %).
//
// The kernels and their launchers are in kernels/NN_name.cuh, one file per table, NN the first
// version it holds: 01_latency, 02_copies (2-3), 04_banks, 05_transpose (5-7), 08_broadcast
// (8-11), and 12_transpose_fast (12-14), the transpose table's top rungs. This file keeps what
// they share, the table of versions and the loop that runs them.
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
    unsigned *order = (unsigned *)lab_xmalloc((size_t)m * sizeof *order);
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

// ======================================================================= kernels and launchers
// Read by version 1's constant chase and by the table reads of versions 8-11.
static __constant__ unsigned c_table[CONST_WORDS];

typedef struct demo_ctx {
    int quick, reps, warmup, flush_l2;
    uint64_t seed;
    double copy_gbps;
    lab_device_info info;
    lab_table *table;     // the table of the group being measured
    int wrong;            // versions whose result was wrong
    double transpose_top; // best checked fraction of copy of versions 12-14 at 8192^2 (0: none)
} demo_ctx;

static lab_timing bench(const demo_ctx *c, lab_bench_fn fn, void *arg)
{
    lab_bench_opts bo = {c->warmup, c->reps, c->flush_l2, NULL};
    return lab_bench(fn, arg, &bo);
}

// One file per table, included here: each uses what is defined above.
#include "kernels/01_latency.cuh"
#include "kernels/02_copies.cuh"
#include "kernels/04_banks.cuh"
#include "kernels/05_transpose.cuh"
#include "kernels/08_broadcast.cuh"
#include "kernels/12_transpose_fast.cuh"

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
    {{12, "transpose-vec4", "64x64 swizzled tile, float4 loads and stores, 256 threads, one tile a block", run_transpose_v12}, GROUP_TRANSPOSE},
    {{13, "transpose-square", "as 12, 128x128 tile in 64 KiB of dynamic shared memory, 512 threads", run_transpose_v13}, GROUP_TRANSPOSE},
    {{14, "transpose-stream", "as 12 with streaming hints: loads and stores evict-first (ld/st.global.cs)", run_transpose_v14}, GROUP_TRANSPOSE},
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
        if (g == GROUP_TRANSPOSE && c.transpose_top > 0)
            lab_demo_goal(&d, "transpose 8192^2: best top rung / copy ceiling", c.transpose_top, 0.95, "x", 0);
    }
    if (c.wrong) lab_demo_fail(&d, LAB_EXIT_FAIL);
    return d.status;
}

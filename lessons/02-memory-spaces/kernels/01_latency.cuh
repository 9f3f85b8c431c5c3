// Version 1 of lesson 02's demo (./demo 1): the latency of each memory space by pointer chasing.
// One thread follows a chain through registers, shared, constant and local memory and through
// global memory with an L1, an L2 and a DRAM working set: the kernels, the chains built on the
// host, and the measurement that fills the latency table. Included by demo.cu after the sizes,
// random_cycle, c_table and demo_ctx it uses.
#pragma once

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
    unsigned long long *h = (unsigned long long *)lab_xcalloc(bytes, 1);
    unsigned *next = (unsigned *)lab_xmalloc((size_t)m * sizeof *next);
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
    unsigned *h = (unsigned *)lab_xmalloc((size_t)words * sizeof *h);
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

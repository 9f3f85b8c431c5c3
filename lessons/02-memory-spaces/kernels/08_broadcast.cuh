// Versions 8-11 of lesson 02's demo (./demo 8, 9, 10, 11): table reads from constant against
// global memory, one address per warp (a broadcast) or 32 different ones, each sum checked.
// Included by demo.cu after BROADCAST_ITERS, CONST_WORDS, c_table and demo_ctx.
#pragma once

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
    float *h_out = (float *)lab_xmalloc(threads * sizeof(float));
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

// Versions 5-7 of lesson 02's demo (./demo 5, 6, 7): the transpose with one thread per element,
// through a 32x32 shared tile (coalesced, bank conflicts) and through a 32x33 one (the graded
// task's reference solution, compiled from its own file); each is checked against transpose_cpu,
// then timed. Included by demo.cu after TILE, TILE_ROWS, transpose_cpu and demo_ctx. The top
// rungs of the same table, versions 12-14, are in 12_transpose_fast.cuh and use run_transpose.
#pragma once

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
#include "../../../solutions/02-memory-spaces/transpose.cu"
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
// Returns its GB/s, 0 when wrong (versions 12-14 keep the best for the lesson's goal).
static double run_transpose(demo_ctx *c, int id, const char *name, lab_bench_fn fn)
{
    transpose_problem p;
    p.rows = p.cols = c->quick ? 2048 : 8192;
    const size_t count = (size_t)p.rows * p.cols, bytes = count * sizeof(float);
    float *h_in = (float *)lab_xmalloc(bytes), *h_want = (float *)lab_xmalloc(bytes);
    float *h_got = (float *)lab_xmalloc(bytes);
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
    return ok ? gbps : 0.0;
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

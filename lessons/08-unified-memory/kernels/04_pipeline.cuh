/* 04_pipeline.cuh — managed saxpy as a pipeline of chunks: the top rung of lesson 08's version 4
 * (./demo 4), and what version 5's schedules (05_schedules.cuh) share with it: the chunks, one
 * call's state, the per-chunk steps and the timeline marks. Included by demo.cu after saxpy_arg,
 * saxpy_kernel, grid_for and host_touch. */
#pragma once

#include <stdint.h>

/* Chunk boundaries of y sit on 2 MiB addresses: the driver migrates managed memory in 2 MiB
 * blocks, and a block split between two chunks would move with the first and be faulted on by
 * the second. */
#define MIGRATION_BLOCK ((size_t)2 << 20)
#define PIPE_CHUNK_BYTES ((size_t)32 << 20) /* version 4's chunk, a multiple of MIGRATION_BLOCK */
#define PIPE_MAX_CHUNKS 256
#define PIPE_MAX_LANES 4

typedef enum pipe_kind {
    PIPE_QUEUED,  /* version 4: every step queued at once on an in, a compute and an out stream */
    PIPE_DRAINED, /* version 5: one host thread, each prefetch to the GPU issued to a drained stream */
    PIPE_THREADS, /* version 5: host threads, each chunk's round trip in one of them */
} pipe_kind;

typedef struct pipe_cfg {
    pipe_kind kind;
    int lanes;                   /* streams; PIPE_THREADS: host threads, a stream each */
    size_t chunk_bytes;          /* a multiple of MIGRATION_BLOCK */
    int y_advice;                /* a cudaMemoryAdvise on y toward the GPU, or 0 for none */
    struct cudaMemLocation home; /* where y goes back to */
} pipe_cfg;

/* One call's timeline: events that the GPU records as each chunk's steps end. */
enum { PIPE_IN, PIPE_RUN, PIPE_HOME, PIPE_STEPS };
typedef struct pipe_trace {
    cudaEvent_t start; /* on the legacy stream, as the call begins */
    cudaEvent_t mark[PIPE_STEPS][PIPE_MAX_CHUNKS];
    int chunks;
} pipe_trace;

typedef struct pipe_arg {
    saxpy_arg s; /* first member: saxpy_before and lab_bench get the same pointer */
    pipe_cfg cfg;
    size_t start[PIPE_MAX_CHUNKS + 1]; /* chunk k is elements [start[k], start[k + 1]) of y */
    int chunks;
    cudaStream_t lane[PIPE_MAX_LANES]; /* non-blocking: a blocking one would wait for the legacy
                                          default stream, and the overlap would be lost */
    cudaEvent_t ready[PIPE_MAX_CHUNKS], done[PIPE_MAX_CHUNKS]; /* PIPE_QUEUED's hand-overs */
    pipe_trace *trace; /* NULL, or the timeline this call marks */
    int next;          /* PIPE_THREADS: the first chunk that no thread has taken yet */
} pipe_arg;

/* The first chunk ends at y's first 2 MiB boundary, the others are cfg.chunk_bytes long. */
static void pipe_cut(pipe_arg *p)
{
    const size_t misalign = (uintptr_t)p->s.hy % MIGRATION_BLOCK;
    const size_t head = misalign ? (MIGRATION_BLOCK - misalign) / sizeof(float) : 0;
    const size_t per = p->cfg.chunk_bytes / sizeof(float);
    int k = 0;
    p->start[k++] = 0;
    for (size_t next = head ? head : per; next < p->s.n && k < PIPE_MAX_CHUNKS; next += per)
        p->start[k++] = next;
    p->start[k] = p->s.n;
    p->chunks = k;
}

/* One schedule's state over the managed buffers already in `s`: chunks, streams, events. */
static void pipe_open(pipe_arg *p, const pipe_cfg *cfg, const saxpy_arg *s)
{
    memset(p, 0, sizeof *p);
    p->s = *s;
    p->cfg = *cfg;
    pipe_cut(p);
    for (int i = 0; i < cfg->lanes; ++i)
        CUDA_CHECK(cudaStreamCreateWithFlags(&p->lane[i], cudaStreamNonBlocking));
    if (cfg->kind != PIPE_QUEUED)
        return;
    for (int k = 0; k < p->chunks; ++k) {
        CUDA_CHECK(cudaEventCreateWithFlags(&p->ready[k], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&p->done[k], cudaEventDisableTiming));
    }
}

static void pipe_close(pipe_arg *p)
{
    if (p->cfg.kind == PIPE_QUEUED)
        for (int k = 0; k < p->chunks; ++k) {
            CUDA_CHECK(cudaEventDestroy(p->ready[k]));
            CUDA_CHECK(cudaEventDestroy(p->done[k]));
        }
    for (int i = 0; i < p->cfg.lanes; ++i)
        CUDA_CHECK(cudaStreamDestroy(p->lane[i]));
}

static void pipe_trace_open(pipe_trace *t, int chunks)
{
    t->chunks = chunks;
    CUDA_CHECK(cudaEventCreate(&t->start));
    for (int s = 0; s < PIPE_STEPS; ++s)
        for (int k = 0; k < chunks; ++k)
            CUDA_CHECK(cudaEventCreate(&t->mark[s][k]));
}

static void pipe_trace_close(pipe_trace *t)
{
    CUDA_CHECK(cudaEventDestroy(t->start));
    for (int s = 0; s < PIPE_STEPS; ++s)
        for (int k = 0; k < t->chunks; ++k)
            CUDA_CHECK(cudaEventDestroy(t->mark[s][k]));
}

/* Milliseconds from the call's start to the end of chunk k's `step` (after the call has synced). */
static float pipe_trace_ms(const pipe_trace *t, int step, int k)
{
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->mark[step][k]));
    return ms;
}

/* Only a traced call records marks: the timed calls run without them. */
static void pipe_mark(const pipe_arg *p, int step, int k, cudaStream_t s)
{
    if (p->trace)
        CUDA_CHECK(cudaEventRecord(p->trace->mark[step][k], s));
}

/* Chunk k of `base` (x or y) to `to`, queued on `s`. */
static void pipe_prefetch(const pipe_arg *p, const float *base, int k, struct cudaMemLocation to,
                          cudaStream_t s)
{
    const size_t at = p->start[k];
    CUDA_CHECK(cudaMemPrefetchAsync(base + at, (p->start[k + 1] - at) * sizeof(float), to, 0, s));
}

/* Chunk k's passes on `s`. */
static void pipe_passes(const pipe_arg *p, int k, cudaStream_t s)
{
    const saxpy_arg *a = &p->s;
    const size_t at = p->start[k], len = p->start[k + 1] - at;
    for (int pass = 0; pass < a->passes; ++pass) {
        saxpy_kernel<<<grid_for(len), BLOCK, 0, s>>>(a->hx + at, a->hy + at, len, SAXPY_A);
        CUDA_LAUNCH_CHECK();
    }
}

/* Version 4's schedule. Chunk k of x and y to the GPU on the in stream; ready[k] says it has
 * arrived. */
static void pipe_queued_in(const pipe_arg *p, int k)
{
    const cudaStream_t in = p->lane[0];
    const cudaMemLocation gpu = um_device_location(p->s.device);
    pipe_prefetch(p, p->s.hx, k, gpu, in);
    pipe_prefetch(p, p->s.hy, k, gpu, in);
    CUDA_CHECK(cudaEventRecord(p->ready[k], in));
    pipe_mark(p, PIPE_IN, k, in);
}

/* Chunk k's passes once it has arrived, then its y back to the host on the out stream. */
static void pipe_queued_run(const pipe_arg *p, int k)
{
    const cudaStream_t compute = p->lane[1], out = p->lane[2];
    CUDA_CHECK(cudaStreamWaitEvent(compute, p->ready[k], 0));
    pipe_passes(p, k, compute);
    CUDA_CHECK(cudaEventRecord(p->done[k], compute));
    pipe_mark(p, PIPE_RUN, k, compute);
    CUDA_CHECK(cudaStreamWaitEvent(out, p->done[k], 0));
    pipe_prefetch(p, p->s.hy, k, p->cfg.home, out);
    pipe_mark(p, PIPE_HOME, k, out);
}

/* Enqueued one step ahead: chunk k + 1's migration is queued before chunk k's passes, so the
 * link is busy while the GPU computes, and y flows back while later chunks flow in. */
static void pipe_queued(pipe_arg *p)
{
    for (int k = 0; k <= p->chunks; ++k) {
        if (k < p->chunks)
            pipe_queued_in(p, k);
        if (k > 0)
            pipe_queued_run(p, k - 1);
    }
}

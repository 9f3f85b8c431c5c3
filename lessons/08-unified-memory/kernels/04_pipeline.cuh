/* 04_pipeline.cuh — the top rung of lesson 08's version 4 (./demo 4): managed saxpy as a pipeline
 * of chunks. Included by demo.cu after saxpy_arg, saxpy_kernel, grid_for and host_touch. */
#pragma once

#include <stdint.h>

/* The pipelined rung of version 4: y in chunks, each chunk's 8 passes on the GPU while the next
 * chunk migrates in and the previous one migrates back, on three non-blocking streams (a
 * blocking stream would wait for the legacy default stream, and the overlap would be lost).
 * Chunk boundaries of y sit on 2 MiB addresses: the driver migrates managed memory in 2 MiB
 * blocks, and a block split between two chunks would move with the first and be faulted on by
 * the second. */
#define MIGRATION_BLOCK ((size_t)2 << 20)
#define PIPE_CHUNK_BYTES ((size_t)32 << 20) /* a multiple of MIGRATION_BLOCK */
#define PIPE_MAX_CHUNKS 64

typedef struct pipe_plan {
    size_t start[PIPE_MAX_CHUNKS + 1]; /* chunk k is elements [start[k], start[k + 1]) */
    int chunks;
    cudaStream_t in, compute, out;
    cudaEvent_t ready[PIPE_MAX_CHUNKS], done[PIPE_MAX_CHUNKS];
} pipe_plan;

static void pipe_plan_make(pipe_plan *pl, const float *y, size_t n)
{
    const size_t misalign = (uintptr_t)y % MIGRATION_BLOCK;
    const size_t head = misalign ? (MIGRATION_BLOCK - misalign) / sizeof(float) : 0;
    const size_t per = PIPE_CHUNK_BYTES / sizeof(float);
    int k = 0;
    pl->start[k++] = 0;
    for (size_t next = head ? head : per; next < n && k < PIPE_MAX_CHUNKS; next += per)
        pl->start[k++] = next;
    pl->start[k] = n;
    pl->chunks = k;
    CUDA_CHECK(cudaStreamCreateWithFlags(&pl->in, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&pl->compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&pl->out, cudaStreamNonBlocking));
    for (int c = 0; c < pl->chunks; ++c) {
        CUDA_CHECK(cudaEventCreateWithFlags(&pl->ready[c], cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&pl->done[c], cudaEventDisableTiming));
    }
}

static void pipe_plan_free(pipe_plan *pl)
{
    for (int c = 0; c < pl->chunks; ++c) {
        CUDA_CHECK(cudaEventDestroy(pl->ready[c]));
        CUDA_CHECK(cudaEventDestroy(pl->done[c]));
    }
    CUDA_CHECK(cudaStreamDestroy(pl->in));
    CUDA_CHECK(cudaStreamDestroy(pl->compute));
    CUDA_CHECK(cudaStreamDestroy(pl->out));
}

/* Chunk k of x and y to the GPU on the `in` stream; `ready[k]` says it has arrived. */
static void pipe_chunk_in(const saxpy_arg *a, int k, struct cudaMemLocation gpu)
{
    const pipe_plan *pl = a->plan;
    const size_t s = pl->start[k], bytes = (pl->start[k + 1] - s) * sizeof(float);
    CUDA_CHECK(cudaMemPrefetchAsync(a->hx + s, bytes, gpu, 0, pl->in));
    CUDA_CHECK(cudaMemPrefetchAsync(a->hy + s, bytes, gpu, 0, pl->in));
    CUDA_CHECK(cudaEventRecord(pl->ready[k], pl->in));
}

/* Chunk k's passes once it has arrived, then its y back to the host on the `out` stream. */
static void pipe_chunk_run(const saxpy_arg *a, int k, struct cudaMemLocation host)
{
    const pipe_plan *pl = a->plan;
    const size_t s = pl->start[k], len = pl->start[k + 1] - s;
    CUDA_CHECK(cudaStreamWaitEvent(pl->compute, pl->ready[k], 0));
    for (int pass = 0; pass < a->passes; ++pass) {
        saxpy_kernel<<<grid_for(len), BLOCK, 0, pl->compute>>>(a->hx + s, a->hy + s, len, SAXPY_A);
        CUDA_LAUNCH_CHECK();
    }
    CUDA_CHECK(cudaEventRecord(pl->done[k], pl->compute));
    CUDA_CHECK(cudaStreamWaitEvent(pl->out, pl->done[k], 0));
    CUDA_CHECK(cudaMemPrefetchAsync(a->hy + s, len * sizeof(float), host, 0, pl->out));
}

/* Enqueued one step ahead: chunk k + 1's migration is queued before chunk k's passes, so the
 * link is busy while the GPU computes, and y flows back while later chunks flow in. */
static void saxpy_pipelined(void *p)
{
    saxpy_arg *a = (saxpy_arg *)p;
    const cudaMemLocation gpu = um_device_location(a->device), host = um_host_location();
    for (int k = 0; k <= a->plan->chunks; ++k) {
        if (k < a->plan->chunks)
            pipe_chunk_in(a, k, gpu);
        if (k > 0)
            pipe_chunk_run(a, k - 1, host);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    a->sink = host_touch(a->hy, a->n);
}

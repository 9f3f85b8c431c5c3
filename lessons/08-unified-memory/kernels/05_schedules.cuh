/* 05_schedules.cuh — version 5 of lesson 08's demo (./demo 5): two schedules for the chunked
 * managed saxpy that let y migrate in and out at the same time. Included by demo.cu after
 * 04_pipeline.cuh.
 *
 * Why version 4's pipeline gained nothing, on NVIDIA's account of the driver ("Maximizing Unified
 * Memory Performance in CUDA", 2017; version 5's timeline of version 4's pipeline shows whether
 * today's driver still behaves so): a cudaMemPrefetchAsync issued to a stream that still has work
 * pending is deferred, handed to a background thread of the driver's that runs it when the stream
 * gets there. A prefetch issued to a stream that has drained runs at once, in the calling thread.
 * Version 4 queues everything at once, so every prefetch but the first is deferred; if that one
 * thread works through them in order, chunk k + 1's way in waits behind chunk k - 1's way home,
 * which waits for chunk k - 1's passes, and the two directions take turns on a link that could
 * carry both at once. The schedules here keep migrations in more than one thread:
 *
 *   drained: one host thread. Chunk k's round trip goes on stream k mod lanes; its way in is
 *            issued after that stream has drained (it runs in this thread), its way home is
 *            queued behind its passes (deferred: it runs in the driver's thread). Two threads
 *            migrate, one each way.
 *   threads: `lanes` host threads take the next chunk in turn and run its whole round trip on a
 *            stream of their own, draining it before each prefetch, so each migration runs in
 *            the thread that asked for it and up to `lanes` of them run at once, either way.
 *
 * x is read-mostly (its copy on the GPU survives the CPU's reads), so one prefetch of all of x
 * opens the call: it finds x already there and moves nothing, and it is drained before the first
 * chunk's prefetch. There is nothing to discard: y is read and written, x is only read. */
#pragma once

#include <pthread.h>

/* x to the GPU (a no-op once its read-only copy is there), drained before the chunks start. */
static void pipe_x_in(const pipe_arg *p)
{
    CUDA_CHECK(cudaMemPrefetchAsync(p->s.hx, p->s.n * sizeof(float), um_device_location(p->s.device),
                                    0, p->lane[0]));
    CUDA_CHECK(cudaStreamSynchronize(p->lane[0]));
}

static void pipe_drained(pipe_arg *p)
{
    const cudaMemLocation gpu = um_device_location(p->s.device);
    pipe_x_in(p);
    for (int k = 0; k < p->chunks; ++k) {
        const cudaStream_t s = p->lane[k % p->cfg.lanes];
        /* Chunk k - lanes is home, s is empty: this prefetch is not deferred. */
        CUDA_CHECK(cudaStreamSynchronize(s));
        pipe_prefetch(p, p->s.hy, k, gpu, s);
        pipe_mark(p, PIPE_IN, k, s);
        pipe_passes(p, k, s);
        pipe_mark(p, PIPE_RUN, k, s);
        /* Behind the passes: deferred, so the driver's thread takes y home while this one goes
         * on to the next chunk's way in. */
        pipe_prefetch(p, p->s.hy, k, p->cfg.home, s);
        pipe_mark(p, PIPE_HOME, k, s);
    }
}

/* One chunk there and back on a stream that only this thread uses, drained before each
 * prefetch, so both migrations run here. */
static void pipe_round_trip(const pipe_arg *p, int k, cudaStream_t s)
{
    pipe_prefetch(p, p->s.hy, k, um_device_location(p->s.device), s);
    pipe_mark(p, PIPE_IN, k, s);
    pipe_passes(p, k, s);
    pipe_mark(p, PIPE_RUN, k, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    pipe_prefetch(p, p->s.hy, k, p->cfg.home, s);
    pipe_mark(p, PIPE_HOME, k, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
}

typedef struct pipe_worker {
    pipe_arg *p;
    int lane;
} pipe_worker;

/* Chunks are independent (saxpy is elementwise), so a thread takes whichever comes next. */
static void *pipe_worker_main(void *arg)
{
    const pipe_worker *w = (const pipe_worker *)arg;
    pipe_arg *p = w->p;
    CUDA_CHECK(cudaSetDevice(p->s.device)); /* a new thread starts on device 0 */
    for (int k; (k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->chunks;)
        pipe_round_trip(p, k, p->lane[w->lane]);
    return NULL;
}

static void pipe_threads(pipe_arg *p)
{
    pthread_t tid[PIPE_MAX_LANES];
    pipe_worker w[PIPE_MAX_LANES];
    pipe_x_in(p);
    p->next = 0;
    for (int i = 0; i < p->cfg.lanes; ++i) {
        w[i].p = p;
        w[i].lane = i;
    }
    for (int i = 1; i < p->cfg.lanes; ++i)
        if (pthread_create(&tid[i], NULL, pipe_worker_main, &w[i]) != 0) {
            fprintf(stderr, "pipe_threads: cannot start host thread %d\n", i);
            exit(LAB_EXIT_CUDA);
        }
    pipe_worker_main(&w[0]); /* the calling thread is lane 0 */
    for (int i = 1; i < p->cfg.lanes; ++i)
        pthread_join(tid[i], NULL);
}

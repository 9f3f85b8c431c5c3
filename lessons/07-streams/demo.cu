// Lesson 07 demo: host memory kinds, streams, and copies overlapped with compute.
//
// The lecture's point, re-measured: host<->device copies cross a link that is tens of
// times slower than device memory, so a program either hides them behind computation or waits
// for them. Pinned memory makes copies fast and asynchronous; streams let the copy of one chunk
// run while another chunk computes; the lecture's overloaded vectorAdd shows how far that goes.
//
//   make build/lessons/07-streams/demo && build/lessons/07-streams/demo [VERSION...]
//   --quick: small sizes; --csv DIR: every table as DIR/07-streams_<table>.csv (version 4 also
//   writes DIR/07-streams_timeline.svg); --reps N: timed runs per measurement
//
// version 1: pageable vs pinned vs write-combined memory, both directions, CPU reads   ./demo 1
// version 2: the lecture's overloaded vectorAdd, no streams vs 1, 2, 4 ... 128 streams    ./demo 2
// version 3: mapped zero-copy against explicit copies, light and heavy kernel          ./demo 3
// version 4: timeline of 4 streams x 8 chunks recorded with events (terminal and SVG)  ./demo 4
// version 5: the legacy default stream's implicit synchronization, and how to avoid it ./demo 5
// version 6: the task's schedule (4 streams, 2..64 chunks) against the overlap bound  ./demo 6
//
// Each version is one file, versions/NN_name.cuh, NN its number, holding the launchers only it
// uses and the function that measures it and prints its tables. What several versions share
// stays here: the timing helpers, the CPU check, and the copy and vectorAdd launchers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab.h"
#include "overload.h"


typedef struct demo_ctx {
    lab_demo *demo;        // the registry, the options, the tables' destination
    const lab_options *o;  // &demo->opts
    int reps, warmup;
} demo_ctx;

static double host_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static lab_timing bench(const demo_ctx *d, lab_bench_fn fn, void *arg)
{
    lab_bench_opts b = { d->warmup, d->reps, 0, NULL };
    return lab_bench(fn, arg, &b);
}

/* ============================================================== CPU reference */
/* The overloaded add's result, checked on every element: a wrong chunk offset in a stream
 * schedule shows up here, not only as a suspicious timing. */
static void check_add(const float *a, const float *b, const float *c, size_t n, int rounds,
                      const char *what)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
        const double v = (double)a[i] + (double)b[i];
        const double want = rounds > 0 ? sqrt(v) : v;
        if (!(fabs(c[i] - want) <= 1e-5 * want)) {
            if (bad++ == 0)
                first = i;
        }
    }
    if (bad) {
        fprintf(stderr, "%s: %zu wrong elements, first [%zu] = %g\n", what, bad, first,
                (double)c[first]);
        exit(LAB_EXIT_FAIL);
    }
}

/* ============================================================== launchers */
typedef struct copy_arg {
    void *dst;
    const void *src;
    size_t bytes;
    cudaMemcpyKind kind;
} copy_arg;

static void run_copy(void *p)
{
    const copy_arg *a = (const copy_arg *)p;
    CUDA_CHECK(cudaMemcpy(a->dst, a->src, a->bytes, a->kind));
}

/* The lecture's vectorAdd: inputs a, b and output c on the host, d* on the device. */
typedef struct vec_arg {
    const float *ha, *hb;
    float *hc;
    float *da, *db, *dc;
    size_t n;
    int rounds;
    cudaStream_t *streams;
    int n_streams;
} vec_arg;

/* "Sin streams": synchronous copies, the kernel, the copy back, each waiting for the last. */
static void run_sequential(void *p)
{
    const vec_arg *a = (const vec_arg *)p;
    const size_t bytes = a->n * sizeof(float);
    CUDA_CHECK(cudaMemcpy(a->da, a->ha, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(a->db, a->hb, bytes, cudaMemcpyHostToDevice));
    overload_add_launch(a->da, a->db, a->dc, a->n, a->rounds, 0);
    CUDA_CHECK(cudaMemcpy(a->hc, a->dc, bytes, cudaMemcpyDeviceToHost));
}

static void chunk_of(size_t n, size_t chunks, size_t c, size_t *off, size_t *len)
{
    const size_t base = n / chunks, extra = n % chunks;
    *len = base + (c < extra ? 1 : 0);
    *off = c * base + (c < extra ? c : extra);
}

/* ============================================================== versions */
/* One file per version, included here: each uses the helpers above. */
#include "versions/01_memory_kinds.cuh"
#include "versions/02_streams.cuh"
#include "versions/03_zero_copy.cuh"
#include "versions/04_timeline.cuh"
#include "versions/05_default_stream.cuh"
#include "versions/06_task_pipeline.cuh"

/* ============================================================== version registry */
static const lab_demo_version versions[] = {
    { 1, "memory-kinds", "pageable vs pinned vs write-combined, both directions, CPU reads",
      memory_kinds_v1 },
    { 2, "streams", "the lecture's overloaded vectorAdd, no streams vs 1..128 streams", streams_v2 },
    { 3, "zero-copy", "mapped host memory read by the kernel vs explicit copies", zero_copy_v3 },
    { 4, "timeline", "4 streams x 8 chunks recorded with events, terminal and SVG", timeline_v4 },
    { 5, "default-stream", "the legacy default stream's implicit synchronization",
      default_stream_v5 },
    { 6, "task-pipeline", "the task's schedule: 4 streams, 2..64 chunks, against the overlap bound",
      task_pipeline_v6 },
};

/* ============================================================== main */
int main(int argc, char **argv)
{
    lab_demo demo = { "07-streams", "Lesson 07: pinned memory, streams and overlap",
                      LAB_DEMO_REGISTRY(versions) };
    if (!lab_demo_start(&demo, argc, argv))
        return demo.status;
    printf("copy engines: %d\n\n", demo.device.async_engines);
    const lab_options *o = &demo.opts;
    demo_ctx d = { &demo, o, o->reps > 0 ? o->reps : (o->quick ? 3 : 5), o->warmup >= 0 ? o->warmup : 1 };
    lab_demo_run(&demo, &d);
    return demo.status;
}

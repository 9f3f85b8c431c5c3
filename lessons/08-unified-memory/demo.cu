// Lesson 08 demo: unified (managed) memory, on demand and with prefetching and advice.
//
// One pointer valid on the CPU and on the GPU, pages that move to whoever touches them: the
// lecture's "UMA" was 24 times slower than explicit copies with streams on a Pascal GPU.
// This demo shows the three ways to write the lecture's AplusB, then measures where that time goes
// and what prefetching and advice win back, on a working set of about a gigabyte.
//
//   make build/lessons/08-unified-memory/demo && build/lessons/08-unified-memory/demo [VERSION...]
//   --quick: small sizes; --csv DIR: every table as DIR/08-unified-memory_<table>.csv;
//   --reps N: timed runs per measurement
//
// version 1: what this GPU supports for managed memory (device attributes)          ./demo 1
// version 2: the lecture's AplusB three ways: cudaMalloc + copy, cudaMallocManaged, __managed__  ./demo 2
// version 3: the lecture's comparison: vector add with copies vs managed on demand vs prefetched ./demo 3
// version 4: multi-pass saxpy (the task): copies vs on demand vs prefetch vs prefetch + advice
//            vs a pipeline of 2 MiB-aligned chunks prefetched one step ahead on side streams ./demo 4
// version 5: the pipeline's schedule: prefetches issued to drained streams, from one host
//            thread or several, swept over chunk sizes, then advice on the best; timelines
//            and the goal (managed pipelined <= 1.2x pinned copies)                          ./demo 5
//
// Every managed allocation is preceded by a check of the device's free memory (um_util.h).
//
// Each version is one file, versions/NN_name.cuh, NN its number, holding the kernels and
// launchers only it uses and the function that measures it and prints its tables. The pipelined
// rungs of versions 4 and 5 are kernels/04_pipeline.cuh and kernels/05_schedules.cuh. What
// several versions share stays here: the CPU check, the saxpy kernel and its launchers.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab.h"
#include "um_util.h"

#define APLUSB_N 1000
#define BLOCK 256

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

static unsigned grid_for(size_t n)
{
    const size_t want = (n + BLOCK - 1) / BLOCK;
    return (unsigned)(want < 65536 ? want : 65536);
}

/* ============================================================== CPU reference */
static void check_close(const float *got, const float *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; ++i) {
        if (!(fabsf(got[i] - want[i]) <= 1e-5f * fabsf(want[i]))) {
            fprintf(stderr, "%s: element %zu is %g, expected %g\n", what, i, (double)got[i],
                    (double)want[i]);
            exit(LAB_EXIT_FAIL);
        }
    }
}

/* The CPU's next phase, reduced to what moves pages: one read in every 4 KiB page (and the
 * last element). A managed page the CPU touches is migrated home whole, so this costs what a
 * full read would cost in migration, without timing the CPU's own arithmetic. */
static double host_touch(const float *x, size_t n)
{
    const size_t stride = 4096 / sizeof(float);
    double s = x[n - 1];
    for (size_t i = 0; i < n; i += stride)
        s += x[i];
    return s;
}

/* ============================================================== kernels */
static __global__ void saxpy_kernel(const float *x, float *y, size_t n, float a)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

/* ============================================================== launchers */
/* Every timed call below starts from data the CPU has just used (the `before` hook, untimed)
 * and ends with the CPU touching every page of the result (timed): the GPU phase of a program
 * that alternates between the two. */
typedef struct saxpy_arg {
    const float *x0, *y0;
    float *hx, *hy;         /* host side, or the managed buffers */
    float *dx, *dy;         /* device side (NULL for managed) */
    size_t n;
    int passes, device;
    int prefetch, advise;
    double sink;
} saxpy_arg;

#define SAXPY_A 0.75f

/* The CPU's phase between two GPU phases: it reads the coefficients x (they do not change)
 * and writes a fresh y. */
static void saxpy_before(void *p)
{
    saxpy_arg *a = (saxpy_arg *)p;
    CUDA_CHECK(cudaDeviceSynchronize());
    a->sink += host_touch(a->hx, a->n);
    memcpy(a->hy, a->y0, a->n * sizeof(float));
}

static void saxpy_copies(void *p)
{
    saxpy_arg *a = (saxpy_arg *)p;
    const size_t bytes = a->n * sizeof(float);
    CUDA_CHECK(cudaMemcpy(a->dx, a->hx, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(a->dy, a->hy, bytes, cudaMemcpyHostToDevice));
    for (int k = 0; k < a->passes; ++k) {
        saxpy_kernel<<<grid_for(a->n), BLOCK>>>(a->dx, a->dy, a->n, SAXPY_A);
        CUDA_LAUNCH_CHECK();
    }
    CUDA_CHECK(cudaMemcpy(a->hy, a->dy, bytes, cudaMemcpyDeviceToHost));
    a->sink = host_touch(a->hy, a->n);
}

static void saxpy_managed(void *p)
{
    saxpy_arg *a = (saxpy_arg *)p;
    const size_t bytes = a->n * sizeof(float);
    const cudaMemLocation gpu = um_device_location(a->device);
    if (a->advise)
        CUDA_CHECK(cudaMemAdvise(a->hx, bytes, cudaMemAdviseSetReadMostly, gpu));
    if (a->prefetch) {
        CUDA_CHECK(cudaMemPrefetchAsync(a->hx, bytes, gpu, 0, 0));
        CUDA_CHECK(cudaMemPrefetchAsync(a->hy, bytes, gpu, 0, 0));
    }
    for (int k = 0; k < a->passes; ++k) {
        saxpy_kernel<<<grid_for(a->n), BLOCK>>>(a->hx, a->hy, a->n, SAXPY_A);
        CUDA_LAUNCH_CHECK();
    }
    if (a->prefetch)
        CUDA_CHECK(cudaMemPrefetchAsync(a->hy, bytes, um_host_location(), 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    a->sink = host_touch(a->hy, a->n);
}

/* The pipelined rungs: version 4's schedule and what every schedule shares, then version 5's. */
#include "kernels/04_pipeline.cuh"
#include "kernels/05_schedules.cuh"

/* One call of a pipelined schedule (a pipe_arg): the chunks there, their passes and y home, then
 * the CPU's touch of y, as in every other saxpy call. */
static void saxpy_pipelined(void *arg)
{
    pipe_arg *p = (pipe_arg *)arg;
    if (p->trace)
        CUDA_CHECK(cudaEventRecord(p->trace->start, 0));
    switch (p->cfg.kind) {
    case PIPE_QUEUED: pipe_queued(p); break;
    case PIPE_DRAINED: pipe_drained(p); break;
    case PIPE_THREADS: pipe_threads(p); break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    p->s.sink = host_touch(p->s.hy, p->s.n);
}

static lab_timing bench_with(const demo_ctx *d, lab_bench_fn fn, lab_bench_fn before, void *arg)
{
    lab_bench_opts b = { d->warmup, d->reps, 0, before };
    return lab_bench(fn, arg, &b);
}

/* ============================================================== what versions 4 and 5 share */
/* The opening of versions 4 and 5: n elements (2^27; 2^20 with --quick), the room for x and y
 * managed, the inputs, and the result every call must leave in y. Returns n. */
static size_t saxpy_inputs(const demo_ctx *d, const char *version, int passes, float **x0, float **y0,
                           float **want)
{
    const size_t n = d->o->quick ? ((size_t)1 << 20) : ((size_t)1 << 27);
    const size_t bytes = n * sizeof(float);
    um_require_free(2 * bytes, version);
    *x0 = (float *)lab_xmalloc(bytes);
    *y0 = (float *)lab_xmalloc(bytes);
    *want = (float *)lab_xmalloc(bytes);
    lab_fill_f32(*x0, n, 0.5f, 1.5f, lab_seed_derive(d->o->seed, "x"));
    lab_fill_f32(*y0, n, 0.5f, 1.5f, lab_seed_derive(d->o->seed, "y"));
    for (size_t i = 0; i < n; ++i)
        (*want)[i] = (float)((double)(*y0)[i] + passes * (double)SAXPY_A * (*x0)[i]);
    return n;
}

/* A managed rung's times, its result checked. Advice persists on a range, so each rung gets
 * managed buffers of its own. */
static lab_timing saxpy_managed_time(const demo_ctx *d, const saxpy_arg *proto, const float *want,
                                     const char *what)
{
    const size_t bytes = proto->n * sizeof(float);
    float *mx = (float *)um_alloc(bytes, "x"), *my = (float *)um_alloc(bytes, "y");
    memcpy(mx, proto->x0, bytes);
    saxpy_arg m = *proto;
    m.hx = mx;
    m.hy = my;
    const lab_timing t = bench_with(d, saxpy_managed, saxpy_before, &m);
    check_close(my, want, proto->n, what);
    CUDA_CHECK(cudaFree(my));
    CUDA_CHECK(cudaFree(mx));
    return t;
}

/* A pipelined schedule's buffers and state: managed buffers of its own, read-mostly x and, where
 * the schedule asks, advice on y (set once, untimed: advice stays on the range), the chunks and
 * streams made once. */
static void pipe_setup(pipe_arg *p, const pipe_cfg *cfg, const saxpy_arg *proto)
{
    const size_t bytes = proto->n * sizeof(float);
    const cudaMemLocation gpu = um_device_location(proto->device);
    saxpy_arg m = *proto;
    m.hx = (float *)um_alloc(bytes, "x");
    m.hy = (float *)um_alloc(bytes, "y");
    memcpy(m.hx, proto->x0, bytes);
    CUDA_CHECK(cudaMemAdvise(m.hx, bytes, cudaMemAdviseSetReadMostly, gpu));
    if (cfg->y_advice)
        CUDA_CHECK(cudaMemAdvise(m.hy, bytes, (cudaMemoryAdvise)cfg->y_advice, gpu));
    pipe_open(p, cfg, &m);
}

static void pipe_teardown(pipe_arg *p)
{
    pipe_close(p);
    CUDA_CHECK(cudaFree(p->s.hy));
    CUDA_CHECK(cudaFree(p->s.hx));
}

/* A pipelined schedule's times, its result checked. */
static lab_timing saxpy_pipelined_time(const demo_ctx *d, const pipe_cfg *cfg, const saxpy_arg *proto,
                                       const float *want, const char *what)
{
    pipe_arg p;
    pipe_setup(&p, cfg, proto);
    const lab_timing t = bench_with(d, saxpy_pipelined, saxpy_before, &p);
    check_close(p.s.hy, want, proto->n, what);
    pipe_teardown(&p);
    return t;
}

/* Version 4's pipeline: 32 MiB chunks, everything queued at once on an in, a compute and an out
 * stream, y home to the host. */
static pipe_cfg pipe_version4(void)
{
    pipe_cfg c = { PIPE_QUEUED, 3, PIPE_CHUNK_BYTES, 0, um_host_location() };
    return c;
}

/* ============================================================== the versions, one file each */
#include "versions/01_capabilities.cuh"
#include "versions/02_aplusb.cuh"
#include "versions/03_vector_add.cuh"
#include "versions/04_saxpy.cuh"
#include "versions/05_schedule.cuh"

/* ============================================================== version registry */
static const lab_demo_version versions[] = {
    { 1, "capabilities", "what this GPU supports for managed memory", capabilities_v1 },
    { 2, "AplusB", "the lecture's AplusB: cudaMalloc + copy, cudaMallocManaged, __managed__",
      aplusb_v2 },
    { 3, "vector-add", "copies vs managed on demand vs prefetched, n = 1e8", vector_add_v3 },
    { 4, "saxpy", "multi-pass saxpy: copies vs on demand vs prefetch vs prefetch + advice",
      saxpy_v4 },
    { 5, "saxpy-pipeline", "the pipeline's schedule swept (drained streams, host threads, chunk "
      "sizes, advice); timelines; the goal", saxpy_pipeline_v5 },
};

/* ============================================================== main */
int main(int argc, char **argv)
{
    lab_demo demo = { "08-unified-memory", "Lesson 08: unified memory, on demand and prefetched",
                      LAB_DEMO_REGISTRY(versions) };
    if (!lab_demo_start(&demo, argc, argv))
        return demo.status;
    printf("\n");
    const lab_options *o = &demo.opts;
    demo_ctx d = { &demo, o, o->reps > 0 ? o->reps : (o->quick ? 3 : 5), o->warmup >= 0 ? o->warmup : 1 };
    lab_demo_run(&demo, &d);
    return demo.status;
}

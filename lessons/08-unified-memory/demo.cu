/* demo.cu — lesson 08: unified (managed) memory, on demand and with prefetching and advice.
 *
 * One pointer valid on the CPU and on the GPU, pages that move to whoever touches them: the
 * lecture's "UMA" was 24 times slower than explicit copies with streams on a Pascal GPU.
 * This demo shows the three ways to write the lecture's AplusB, then measures where that time goes
 * and what prefetching and advice win back, on a working set of about a gigabyte.
 *
 *   build: make build/lessons/08-unified-memory/demo
 *   run:   build/lessons/08-unified-memory/demo [VERSION...] [--quick] [--csv DIR] [--reps N]
 *
 *   version 1: what this GPU supports for managed memory (device attributes)          ./demo 1
 *   version 2: the lecture's AplusB three ways: cudaMalloc + copy, cudaMallocManaged, __managed__  ./demo 2
 *   version 3: the lecture's comparison: vector add with copies vs managed on demand vs prefetched ./demo 3
 *   version 4: multi-pass saxpy (the task): copies vs on demand vs prefetch vs prefetch + advice
 *              vs a pipeline of 2 MiB-aligned chunks prefetched one step ahead on side streams ./demo 4
 *   version 5: the pipeline's schedule: prefetches issued to drained streams, from one host
 *              thread or several, swept over chunk sizes, then advice on the best; timelines
 *              and the goal (managed pipelined <= 1.2x pinned copies)                          ./demo 5
 *
 * Every managed allocation is preceded by a check of the device's free memory (um_util.h).
 * With --csv DIR every table goes to DIR/08-unified-memory_<table>.csv.
 */
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

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(LAB_EXIT_CUDA);
    }
    return p;
}

static unsigned grid_for(size_t n)
{
    const size_t want = (n + BLOCK - 1) / BLOCK;
    return (unsigned)(want < 65536 ? want : 65536);
}

/* ============================================================== CPU reference */
static int aplusb_ok(const int *ret, int a, int b)
{
    for (int i = 0; i < APLUSB_N; ++i)
        if (ret[i] != a + b + i)
            return 0;
    return 1;
}

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
static __global__ void aplusb_kernel(int *ret, int a, int b)
{
    ret[threadIdx.x] = a + b + threadIdx.x;
}

/* A __managed__ variable: a global the host and the device both name directly. */
static __device__ __managed__ int aplusb_ret[APLUSB_N];

static __global__ void aplusb_global_kernel(int a, int b)
{
    aplusb_ret[threadIdx.x] = a + b + threadIdx.x;
}

static __global__ void add_kernel(const float *a, const float *b, float *c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

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
typedef struct add_arg {
    const float *a0, *b0;   /* pristine inputs */
    float *ha, *hb, *hc;    /* host side (pageable, pinned, or the managed buffers) */
    float *da, *db, *dc;    /* device side (NULL for managed) */
    size_t n;
    int prefetch, device;   /* prefetch 2: c discarded, then prefetched (CUDA 13) */
    double sink;
    cudaStream_t side;      /* prefetch 2: a blocking stream, as the batch calls need one */
} add_arg;

static void add_before(void *p)
{
    add_arg *a = (add_arg *)p;
    CUDA_CHECK(cudaDeviceSynchronize());
    memcpy(a->ha, a->a0, a->n * sizeof(float));
    memcpy(a->hb, a->b0, a->n * sizeof(float));
    memset(a->hc, 0, a->n * sizeof(float));
}

static void add_copies(void *p)
{
    add_arg *a = (add_arg *)p;
    const size_t bytes = a->n * sizeof(float);
    CUDA_CHECK(cudaMemcpy(a->da, a->ha, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(a->db, a->hb, bytes, cudaMemcpyHostToDevice));
    add_kernel<<<grid_for(a->n), BLOCK>>>(a->da, a->db, a->dc, a->n);
    CUDA_LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(a->hc, a->dc, bytes, cudaMemcpyDeviceToHost));
    a->sink = host_touch(a->hc, a->n);
}

/* c is output only: whatever the CPU left in it is overwritten by the kernel. Discarding it first
 * lets the prefetch map it on the GPU without copying its old contents over the link. The
 * stream is a blocking one, so the kernel on the legacy default stream waits for it. */
static cudaError_t discard_and_prefetch(void *ptr, size_t bytes, struct cudaMemLocation to,
                                        cudaStream_t stream)
{
    void *ptrs[1] = { ptr };
    size_t sizes[1] = { bytes }, first_op[1] = { 0 };
    struct cudaMemLocation locs[1] = { to };
    return cudaMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 1, locs, first_op, 1, 0, stream);
}

static void add_managed(void *p)
{
    add_arg *a = (add_arg *)p;
    const size_t bytes = a->n * sizeof(float);
    if (a->prefetch) {
        const cudaMemLocation gpu = um_device_location(a->device);
        CUDA_CHECK(cudaMemPrefetchAsync(a->ha, bytes, gpu, 0, 0));
        CUDA_CHECK(cudaMemPrefetchAsync(a->hb, bytes, gpu, 0, 0));
        if (a->prefetch == 2)
            CUDA_CHECK(discard_and_prefetch(a->hc, bytes, gpu, a->side));
        else
            CUDA_CHECK(cudaMemPrefetchAsync(a->hc, bytes, gpu, 0, 0));
    }
    add_kernel<<<grid_for(a->n), BLOCK>>>(a->ha, a->hb, a->hc, a->n);
    CUDA_LAUNCH_CHECK();
    if (a->prefetch)
        CUDA_CHECK(cudaMemPrefetchAsync(a->hc, bytes, um_host_location(), 0, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    a->sink = host_touch(a->hc, a->n);
}

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

/* ============================================================== version 1: capabilities */
static void capabilities_v1(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const struct { const char *name; cudaDeviceAttr attr; const char *meaning; } attrs[] = {
        { "managedMemory", cudaDevAttrManagedMemory, "cudaMallocManaged works at all" },
        { "concurrentManagedAccess", cudaDevAttrConcurrentManagedAccess,
          "GPU page faults: CPU and GPU may touch managed data at the same time (cc >= 6.0, Linux)" },
        { "pageableMemoryAccess", cudaDevAttrPageableMemoryAccess,
          "the GPU may read plain malloc'ed memory (HMM or ATS)" },
        { "pageableMemoryAccessUsesHostPageTables", cudaDevAttrPageableMemoryAccessUsesHostPageTables,
          "...through the CPU's own page tables (ATS, e.g. Grace Hopper)" },
        { "directManagedMemAccessFromHost", cudaDevAttrDirectManagedMemAccessFromHost,
          "the CPU reads GPU-resident managed pages without migrating them" },
        { "canMapHostMemory", cudaDevAttrCanMapHostMemory, "zero-copy mapped pinned memory (lesson 07)" },
    };
    const char *cols[] = { "attribute", "value", "what it means" };
    lab_table *t = lab_table_new("Managed-memory capabilities of this GPU", cols, 3);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        int v = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&v, attrs[i].attr, d->o->device));
        lab_table_rowf(t, "%s|%d|%s", attrs[i].name, v, attrs[i].meaning);
    }
    size_t free_bytes, total_bytes;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    lab_table_rowf(t, "%s|%.1f|%s", "free device memory (GiB)", free_bytes / 1073741824.0,
                   "the ceiling for any managed working set here (half of it is used at most)");
    lab_demo_emit(d->demo, t, "capabilities");
}

/* ============================================================== version 2: AplusB */
static void aplusb_v2(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const int a = 10, b = 100;
    const char *cols[] = { "way", "host code needs", "ms", "ret[0]", "ret[999]", "all correct" };
    lab_table *t = lab_table_new("The lecture's AplusB, three ways (1000 ints, first call)", cols, 6);

    double t0 = host_now_ms();
    int *dev_ret, *host_ret = (int *)xmalloc(APLUSB_N * sizeof(int));
    CUDA_CHECK(cudaMalloc((void **)&dev_ret, APLUSB_N * sizeof(int)));
    aplusb_kernel<<<1, APLUSB_N>>>(dev_ret, a, b);
    CUDA_LAUNCH_CHECK();
    /* cudaMemcpyDefault: with unified addressing the runtime tells host from device pointers. */
    CUDA_CHECK(cudaMemcpy(host_ret, dev_ret, APLUSB_N * sizeof(int), cudaMemcpyDefault));
    double ms = host_now_ms() - t0;
    lab_table_rowf(t, "%s|%s|%.3f|%d|%d|%s", "cudaMalloc + cudaMemcpy", "two buffers, one copy", ms,
                   host_ret[0], host_ret[APLUSB_N - 1], aplusb_ok(host_ret, a, b) ? "yes" : "NO");
    CUDA_CHECK(cudaFree(dev_ret));
    free(host_ret);

    t0 = host_now_ms();
    int *ret = (int *)um_alloc(APLUSB_N * sizeof(int), "AplusB");
    aplusb_kernel<<<1, APLUSB_N>>>(ret, a, b);
    CUDA_LAUNCH_CHECK();
    /* Kernel launches are asynchronous: the CPU may read only after the GPU is done. */
    CUDA_CHECK(cudaDeviceSynchronize());
    ms = host_now_ms() - t0;
    lab_table_rowf(t, "%s|%s|%.3f|%d|%d|%s", "cudaMallocManaged", "one pointer, a sync", ms, ret[0],
                   ret[APLUSB_N - 1], aplusb_ok(ret, a, b) ? "yes" : "NO");
    CUDA_CHECK(cudaFree(ret));

    t0 = host_now_ms();
    aplusb_global_kernel<<<1, APLUSB_N>>>(a, b);
    CUDA_LAUNCH_CHECK();
    CUDA_CHECK(cudaDeviceSynchronize());
    ms = host_now_ms() - t0;
    lab_table_rowf(t, "%s|%s|%.3f|%d|%d|%s", "__device__ __managed__ int ret[1000]",
                   "no allocation, a sync", ms, aplusb_ret[0], aplusb_ret[APLUSB_N - 1],
                   aplusb_ok(aplusb_ret, a, b) ? "yes" : "NO");
    lab_demo_emit(d->demo, t, "aplusb");
}

/* ============================================================== version 3: the lecture's comparison */
/* One untimed try of the CUDA 13 discard call: a driver that refuses it costs its row (said in
 * one line), not the run. Its errors are not sticky, so the next call starts clean. */
static int discard_supported(void *c, size_t bytes, int device, cudaStream_t side)
{
    const cudaError_t err = discard_and_prefetch(c, bytes, um_device_location(device), side);
    if (err == cudaSuccess) {
        CUDA_CHECK(cudaStreamSynchronize(side));
        return 1;
    }
    (void)cudaGetLastError();
    printf("note: cudaMemDiscardAndPrefetchBatchAsync: %s; its row is left out\n", cudaGetErrorString(err));
    return 0;
}

static void vector_add_v3(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    /* The lecture's size: vectorAdd -n=100000000, three arrays, 1.2 GB in all. */
    const size_t n = d->o->quick ? ((size_t)1 << 20) : (size_t)100000000;
    const size_t bytes = n * sizeof(float);
    um_require_free(3 * bytes, "version 3");
    float *a0 = (float *)xmalloc(bytes), *b0 = (float *)xmalloc(bytes), *want = (float *)xmalloc(bytes);
    lab_fill_f32(a0, n, 0.0f, 1.0f, lab_seed_derive(d->o->seed, "a"));
    lab_fill_f32(b0, n, 0.0f, 1.0f, lab_seed_derive(d->o->seed, "b"));
    for (size_t i = 0; i < n; ++i)
        want[i] = a0[i] + b0[i];

    float *pa = (float *)xmalloc(bytes), *pb = (float *)xmalloc(bytes), *pc = (float *)xmalloc(bytes);
    float *ha, *hb, *hc, *da, *db, *dc;
    CUDA_CHECK(cudaMallocHost((void **)&ha, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hb, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hc, bytes));
    CUDA_CHECK(cudaMalloc((void **)&da, bytes));
    CUDA_CHECK(cudaMalloc((void **)&db, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dc, bytes));

    const double gb = 3.0 * bytes / 1e9;
    const double h2d_ceiling = lab_ceiling_h2d_gbps();
    const char *cols[] = { "method", "ms", "vs pageable copies", "link GB/s", "% of h2d ceiling" };
    lab_table *t = lab_table_new("c = a + b, n = 1e8: explicit copies vs managed (lecture: 74 ms with "
                                 "streams, 1775 ms UMA)", cols, 5);

    add_arg pg = { a0, b0, pa, pb, pc, da, db, dc, n, 0, d->o->device, 0 };
    const double pageable_ms = bench_with(d, add_copies, add_before, &pg).median_ms;
    check_close(pc, want, n, "copies, pageable");
    lab_table_rowf(t, "%s|%.2f|%.2f|%.1f|%.1f", "cudaMemcpy, pageable malloc", pageable_ms, 1.0,
                   gb / (pageable_ms * 1e-3), 100.0 * gb / (pageable_ms * 1e-3) / h2d_ceiling);

    add_arg pn = { a0, b0, ha, hb, hc, da, db, dc, n, 0, d->o->device, 0 };
    const double pinned_ms = bench_with(d, add_copies, add_before, &pn).median_ms;
    check_close(hc, want, n, "copies, pinned");
    lab_table_rowf(t, "%s|%.2f|%.2f|%.1f|%.1f", "cudaMemcpy, pinned", pinned_ms, pageable_ms / pinned_ms,
                   gb / (pinned_ms * 1e-3), 100.0 * gb / (pinned_ms * 1e-3) / h2d_ceiling);
    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(da));

    float *ma = (float *)um_alloc(bytes, "a"), *mb = (float *)um_alloc(bytes, "b");
    float *mc = (float *)um_alloc(bytes, "c");
    const char *names[] = { "managed, on demand (page faults)", "managed, cudaMemPrefetchAsync",
                            "managed, prefetch a, b; discard + prefetch c" };
    cudaStream_t side;
    CUDA_CHECK(cudaStreamCreate(&side));
    for (int pf = 0; pf < 3; ++pf) {
        add_arg m = { a0, b0, ma, mb, mc, NULL, NULL, NULL, n, pf, d->o->device, 0, side };
        if (pf == 2 && !discard_supported(mc, bytes, d->o->device, side))
            continue;
        const double ms = bench_with(d, add_managed, add_before, &m).median_ms;
        check_close(mc, want, n, names[pf]);
        lab_table_rowf(t, "%s|%.2f|%.2f|%.1f|%.1f", names[pf], ms, pageable_ms / ms,
                       gb / (ms * 1e-3), 100.0 * gb / (ms * 1e-3) / h2d_ceiling);
    }
    CUDA_CHECK(cudaStreamDestroy(side));
    lab_demo_emit(d->demo, t, "vector_add");

    CUDA_CHECK(cudaFree(mc));
    CUDA_CHECK(cudaFree(mb));
    CUDA_CHECK(cudaFree(ma));
    CUDA_CHECK(cudaFreeHost(hc));
    CUDA_CHECK(cudaFreeHost(hb));
    CUDA_CHECK(cudaFreeHost(ha));
    free(pc);
    free(pb);
    free(pa);
    free(want);
    free(b0);
    free(a0);
}

/* ============================================================== version 4: multi-pass saxpy */
/* The opening of versions 4 and 5: n elements (2^27; 2^20 with --quick), the room for x and y
 * managed, the inputs, and the result every call must leave in y. Returns n. */
static size_t saxpy_inputs(const demo_ctx *d, const char *version, int passes, float **x0, float **y0,
                           float **want)
{
    const size_t n = d->o->quick ? ((size_t)1 << 20) : ((size_t)1 << 27);
    const size_t bytes = n * sizeof(float);
    um_require_free(2 * bytes, version);
    *x0 = (float *)xmalloc(bytes);
    *y0 = (float *)xmalloc(bytes);
    *want = (float *)xmalloc(bytes);
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

static void saxpy_v4(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const int passes = 8;
    float *x0, *y0, *want;
    const size_t n = saxpy_inputs(d, "version 4", passes, &x0, &y0, &want), bytes = n * sizeof(float);

    float *px = (float *)xmalloc(bytes), *py = (float *)xmalloc(bytes);
    float *hx, *hy, *dx, *dy;
    CUDA_CHECK(cudaMallocHost((void **)&hx, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hy, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));

    const double gb = 3.0 * bytes / 1e9;
    const double h2d_ceiling = lab_ceiling_h2d_gbps();
    const char *cols[] = { "method", "ms", "vs pageable copies", "vs pinned copies", "link GB/s",
                           "% of h2d ceiling" };
    char title[160];
    snprintf(title, sizeof title, "y = a*x + y, %d passes, n = %zu (%.0f MiB managed)", passes, n,
             2.0 * bytes / 1048576.0);
    lab_table *t = lab_table_new(title, cols, 6);

    memcpy(px, x0, bytes);
    memcpy(hx, x0, bytes);
    saxpy_arg pg = { x0, y0, px, py, dx, dy, n, passes, d->o->device, 0, 0, 0 };
    const double pageable_ms = bench_with(d, saxpy_copies, saxpy_before, &pg).median_ms;
    check_close(py, want, n, "copies, pageable");
    saxpy_arg pn = { x0, y0, hx, hy, dx, dy, n, passes, d->o->device, 0, 0, 0 };
    const double pinned_ms = bench_with(d, saxpy_copies, saxpy_before, &pn).median_ms;
    check_close(hy, want, n, "copies, pinned");
    lab_table_rowf(t, "%s|%.2f|%.2f|%.2f|%.1f|%.1f", "cudaMemcpy, pageable malloc", pageable_ms, 1.0,
                   pinned_ms / pageable_ms, gb / (pageable_ms * 1e-3),
                   100.0 * gb / (pageable_ms * 1e-3) / h2d_ceiling);
    lab_table_rowf(t, "%s|%.2f|%.2f|%.2f|%.1f|%.1f", "cudaMemcpy, pinned", pinned_ms,
                   pageable_ms / pinned_ms, 1.0, gb / (pinned_ms * 1e-3),
                   100.0 * gb / (pinned_ms * 1e-3) / h2d_ceiling);
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dx));

    const struct { const char *name; int prefetch, advise; } variants[] = {
        { "managed, on demand (page faults)", 0, 0 },
        { "managed, prefetch to GPU and back", 1, 0 },
        { "managed, prefetch + read-mostly x (the task)", 1, 1 },
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
        const saxpy_arg m = { x0, y0, NULL, NULL, NULL, NULL, n, passes, d->o->device,
                              variants[v].prefetch, variants[v].advise, 0 };
        const double ms = saxpy_managed_time(d, &m, want, variants[v].name).median_ms;
        lab_table_rowf(t, "%s|%.2f|%.2f|%.2f|%.1f|%.1f", variants[v].name, ms, pageable_ms / ms,
                       pinned_ms / ms, gb / (ms * 1e-3), 100.0 * gb / (ms * 1e-3) / h2d_ceiling);
    }
    const saxpy_arg proto = { x0, y0, NULL, NULL, NULL, NULL, n, passes, d->o->device, 1, 1, 0 };
    const pipe_cfg v4 = pipe_version4();
    const double pipe_ms = saxpy_pipelined_time(d, &v4, &proto, want, "managed, pipelined").median_ms;
    lab_table_rowf(t, "%s|%.2f|%.2f|%.2f|%.1f|%.1f", "managed, pipelined 32 MiB chunks + read-mostly x",
                   pipe_ms, pageable_ms / pipe_ms, pinned_ms / pipe_ms, gb / (pipe_ms * 1e-3),
                   100.0 * gb / (pipe_ms * 1e-3) / h2d_ceiling);
    /* The goal line is version 5's, measured on the best of its schedules. */
    lab_demo_emit(d->demo, t, "saxpy");

    CUDA_CHECK(cudaFreeHost(hy));
    CUDA_CHECK(cudaFreeHost(hx));
    free(py);
    free(px);
    free(want);
    free(y0);
    free(x0);
}

/* ============================================================== version 5: the pipeline's schedule */
/* The pinned explicit copies of version 4, measured again: the goal compares times of one run. */
static double saxpy_pinned_ms(const demo_ctx *d, const saxpy_arg *proto, const float *want)
{
    const size_t bytes = proto->n * sizeof(float);
    float *hx, *hy, *dx, *dy;
    CUDA_CHECK(cudaMallocHost((void **)&hx, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hy, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    memcpy(hx, proto->x0, bytes);
    saxpy_arg pn = *proto;
    pn.hx = hx;
    pn.hy = hy;
    pn.dx = dx;
    pn.dy = dy;
    const double ms = bench_with(d, saxpy_copies, saxpy_before, &pn).median_ms;
    check_close(hy, want, proto->n, "copies, pinned");
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFreeHost(hy));
    CUDA_CHECK(cudaFreeHost(hx));
    return ms;
}

/* One call of a schedule, untimed, after one that puts x's copy on the GPU as a warm-up does,
 * with its steps marked on the GPU: when each chunk had arrived, had finished its passes and was
 * home, in ms from the call's start. Where one chunk's "in" comes only after the previous one's
 * "home", the two directions took turns. At most 12 chunks are shown, the last among them. */
static void saxpy_pipelined_timeline(const demo_ctx *d, const pipe_cfg *cfg, const saxpy_arg *proto,
                                     const float *want, const char *what, const char *table)
{
    pipe_arg p;
    pipe_setup(&p, cfg, proto);
    saxpy_before(&p);
    saxpy_pipelined(&p);
    pipe_trace tr;
    pipe_trace_open(&tr, p.chunks);
    saxpy_before(&p);
    p.trace = &tr;
    saxpy_pipelined(&p);
    p.trace = NULL;
    check_close(p.s.hy, want, proto->n, what);

    char title[256];
    snprintf(title, sizeof title, "Timeline, %s, %zu MiB chunks: ms from the call's start to the end "
             "of each step", what, cfg->chunk_bytes >> 20);
    const char *cols[] = { "chunk", "y from MiB", "in", "passes", "home" };
    lab_table *t = lab_table_new(title, cols, 5);
    const int step = (p.chunks + 11) / 12;
    for (int k = 0; k < p.chunks; ++k)
        if (k % step == 0 || k == p.chunks - 1)
            lab_table_rowf(t, "%d|%.0f|%.2f|%.2f|%.2f", k, p.start[k] * sizeof(float) / 1048576.0,
                           pipe_trace_ms(&tr, PIPE_IN, k), pipe_trace_ms(&tr, PIPE_RUN, k),
                           pipe_trace_ms(&tr, PIPE_HOME, k));
    lab_demo_emit(d->demo, t, table);
    pipe_trace_close(&tr);
    pipe_teardown(&p);
}

/* The host NUMA node nearest the GPU as the place y goes home to; 0, said in one line, where the
 * system has no NUMA or the driver refuses a prefetch there (its row is then left out). */
static int numa_home(int device, struct cudaMemLocation *loc)
{
    if (!um_nearest_host_numa(device, loc)) {
        printf("note: no host NUMA node is reported for this GPU; its row is left out\n");
        return 0;
    }
    void *probe = um_alloc(MIGRATION_BLOCK, "a probe");
    const cudaError_t err = cudaMemPrefetchAsync(probe, MIGRATION_BLOCK, *loc, 0, 0);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        printf("note: cudaMemPrefetchAsync to host NUMA node %d: %s; its row is left out\n", loc->id,
               cudaGetErrorString(err));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(probe));
    return err == cudaSuccess;
}

typedef struct pipe_best {
    pipe_cfg cfg;
    double ms;
    char name[256];
} pipe_best;

/* A schedule's row; a new candidate (best not NULL) that beats the best so far replaces it. */
static void pipe_row(lab_table *t, const char *name, const pipe_cfg *cfg, lab_timing tm, double pinned_ms,
                     pipe_best *best)
{
    lab_table_rowf(t, "%s|%zu|%.2f|%.2f|%.2f", name, cfg->chunk_bytes >> 20, tm.median_ms, tm.min_ms,
                   tm.median_ms / pinned_ms);
    if (best && tm.median_ms < best->ms) {
        best->cfg = *cfg;
        best->ms = tm.median_ms;
        snprintf(best->name, sizeof best->name, "%s", name);
    }
}

/* Version 4's pipeline overlapped nothing (see 05_schedules.cuh). Here the same chunks run under
 * schedules whose prefetches to the GPU go to drained streams, from one host thread or several,
 * at three chunk sizes (small chunks: short fill and drain, more calls; large: the reverse); then
 * the best of them with one idea more each: advice on y, or y home to the GPU's NUMA node. The
 * lowest of a dozen noisy medians flatters its schedule, so the goal is read from that schedule
 * measured once more, on buffers of its own. */
static void saxpy_pipeline_v5(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const int passes = 8;
    float *x0, *y0, *want;
    const size_t n = saxpy_inputs(d, "version 5", passes, &x0, &y0, &want);
    const saxpy_arg proto = { x0, y0, NULL, NULL, NULL, NULL, n, passes, d->o->device, 1, 1, 0 };

    const char *cols[] = { "method", "chunk MiB", "ms", "fastest ms", "x pinned copies' time" };
    char title[200];
    snprintf(title, sizeof title, "y = a*x + y, %d passes, n = %zu: pipelined managed schedules against "
             "pinned copies (goal <= 1.2x)", passes, n);
    lab_table *t = lab_table_new(title, cols, 5);
    const double pinned_ms = saxpy_pinned_ms(d, &proto, want);
    lab_table_rowf(t, "%s|%s|%.2f|%s|%.2f", "cudaMemcpy, pinned", "-", pinned_ms, "-", 1.0);
    const lab_timing whole = saxpy_managed_time(d, &proto, want, "managed, prefetch + read-mostly x");
    lab_table_rowf(t, "%s|%s|%.2f|%.2f|%.2f", "managed, all of y at once + read-mostly x (version 4)",
                   "all", whole.median_ms, whole.min_ms, whole.median_ms / pinned_ms);
    const pipe_cfg queued = pipe_version4();
    pipe_row(t, "managed, all queued at once (version 4's pipeline)", &queued,
             saxpy_pipelined_time(d, &queued, &proto, want, "version 4's pipeline"), pinned_ms, NULL);

    const struct { const char *name; pipe_kind kind; int lanes; } schedules[] = {
        { "drained streams: in from this thread, home deferred (3)", PIPE_DRAINED, 3 },
        { "2 host threads, a chunk's round trip each", PIPE_THREADS, 2 },
        { "4 host threads, a chunk's round trip each", PIPE_THREADS, 4 },
    };
    const size_t chunk_mib[] = { 8, 32, 128 };
    pipe_best best = { pipe_version4(), INFINITY, "" };
    for (size_t s = 0; s < sizeof schedules / sizeof schedules[0]; ++s)
        for (size_t c = 0; c < sizeof chunk_mib / sizeof chunk_mib[0]; ++c) {
            const pipe_cfg cfg = { schedules[s].kind, schedules[s].lanes, chunk_mib[c] << 20, 0,
                                   um_host_location() };
            pipe_row(t, schedules[s].name, &cfg,
                     saxpy_pipelined_time(d, &cfg, &proto, want, schedules[s].name), pinned_ms, &best);
        }

    const pipe_best sweep = best;
    const struct { const char *name; int y_advice, numa; } extras[] = {
        { "y preferred location: the GPU", cudaMemAdviseSetPreferredLocation, 0 },
        { "y accessed by the GPU", cudaMemAdviseSetAccessedBy, 0 },
        { "y home to the GPU's host NUMA node", 0, 1 },
    };
    for (size_t e = 0; e < sizeof extras / sizeof extras[0]; ++e) {
        pipe_cfg cfg = sweep.cfg;
        cfg.y_advice = extras[e].y_advice;
        if (extras[e].numa && !numa_home(d->o->device, &cfg.home))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.160s + %.60s", sweep.name, extras[e].name);
        pipe_row(t, name, &cfg, saxpy_pipelined_time(d, &cfg, &proto, want, name), pinned_ms, &best);
    }

    const lab_timing again = saxpy_pipelined_time(d, &best.cfg, &proto, want, best.name);
    char name[256];
    snprintf(name, sizeof name, "again (the goal's): %.200s", best.name);
    lab_table_rowf(t, "%s|%zu|%.2f|%.2f|%.2f", name, best.cfg.chunk_bytes >> 20, again.median_ms,
                   again.min_ms, again.median_ms / pinned_ms);
    lab_demo_emit(d->demo, t, "saxpy_pipeline");
    lab_demo_goal(d->demo, "saxpy: managed pipelined / pinned copies time", again.median_ms / pinned_ms,
                  1.2, "x", 1);
    printf("\n");

    saxpy_pipelined_timeline(d, &queued, &proto, want, "version 4's pipeline", "timeline_queued");
    saxpy_pipelined_timeline(d, &best.cfg, &proto, want, best.name, "timeline_best");

    free(want);
    free(y0);
    free(x0);
}

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

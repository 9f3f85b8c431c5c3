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
    const struct pipe_plan *plan; /* the pipelined rung only */
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

/* The pipelined rung of version 4, in a file of its own. */
#include "kernels/04_pipeline.cuh"

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
/* The pipelined rung's median, its result checked: managed buffers of its own, read-mostly x
 * (the advice is set once, untimed: it stays on the range), the chunk plan and streams made once. */
static double saxpy_pipelined_ms(const demo_ctx *d, const saxpy_arg *proto, const float *want)
{
    const size_t bytes = proto->n * sizeof(float);
    float *mx = (float *)um_alloc(bytes, "x"), *my = (float *)um_alloc(bytes, "y");
    memcpy(mx, proto->x0, bytes);
    CUDA_CHECK(cudaMemAdvise(mx, bytes, cudaMemAdviseSetReadMostly, um_device_location(proto->device)));
    pipe_plan plan;
    pipe_plan_make(&plan, my, proto->n);
    saxpy_arg m = *proto;
    m.hx = mx;
    m.hy = my;
    m.plan = &plan;
    const double ms = bench_with(d, saxpy_pipelined, saxpy_before, &m).median_ms;
    check_close(my, want, proto->n, "managed, pipelined");
    pipe_plan_free(&plan);
    CUDA_CHECK(cudaFree(my));
    CUDA_CHECK(cudaFree(mx));
    return ms;
}

static void saxpy_v4(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const size_t n = d->o->quick ? ((size_t)1 << 20) : ((size_t)1 << 27);
    const size_t bytes = n * sizeof(float);
    const int passes = 8;
    um_require_free(2 * bytes, "version 4");
    float *x0 = (float *)xmalloc(bytes), *y0 = (float *)xmalloc(bytes), *want = (float *)xmalloc(bytes);
    lab_fill_f32(x0, n, 0.5f, 1.5f, lab_seed_derive(d->o->seed, "x"));
    lab_fill_f32(y0, n, 0.5f, 1.5f, lab_seed_derive(d->o->seed, "y"));
    for (size_t i = 0; i < n; ++i)
        want[i] = (float)((double)y0[i] + passes * (double)SAXPY_A * x0[i]);

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

    /* Advice persists on a range, so each managed variant gets buffers of its own. */
    const struct { const char *name; int prefetch, advise; } variants[] = {
        { "managed, on demand (page faults)", 0, 0 },
        { "managed, prefetch to GPU and back", 1, 0 },
        { "managed, prefetch + read-mostly x (the task)", 1, 1 },
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
        float *mx = (float *)um_alloc(bytes, "x"), *my = (float *)um_alloc(bytes, "y");
        memcpy(mx, x0, bytes);
        saxpy_arg m = { x0, y0, mx, my, NULL, NULL, n, passes, d->o->device, variants[v].prefetch,
                        variants[v].advise, 0 };
        const double ms = bench_with(d, saxpy_managed, saxpy_before, &m).median_ms;
        check_close(my, want, n, variants[v].name);
        lab_table_rowf(t, "%s|%.2f|%.2f|%.2f|%.1f|%.1f", variants[v].name, ms, pageable_ms / ms,
                       pinned_ms / ms, gb / (ms * 1e-3), 100.0 * gb / (ms * 1e-3) / h2d_ceiling);
        CUDA_CHECK(cudaFree(my));
        CUDA_CHECK(cudaFree(mx));
    }
    const saxpy_arg proto = { x0, y0, NULL, NULL, NULL, NULL, n, passes, d->o->device, 1, 1, 0, NULL };
    const double pipe_ms = saxpy_pipelined_ms(d, &proto, want);
    lab_table_rowf(t, "%s|%.2f|%.2f|%.2f|%.1f|%.1f", "managed, pipelined 32 MiB chunks + read-mostly x",
                   pipe_ms, pageable_ms / pipe_ms, pinned_ms / pipe_ms, gb / (pipe_ms * 1e-3),
                   100.0 * gb / (pipe_ms * 1e-3) / h2d_ceiling);
    lab_demo_emit(d->demo, t, "saxpy");
    lab_demo_goal(d->demo, "saxpy: managed pipelined / pinned copies time", pipe_ms / pinned_ms, 1.2, "x", 1);

    CUDA_CHECK(cudaFreeHost(hy));
    CUDA_CHECK(cudaFreeHost(hx));
    free(py);
    free(px);
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

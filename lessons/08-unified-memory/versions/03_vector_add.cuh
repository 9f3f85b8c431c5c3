/* 03_vector_add.cuh — version 3 of lesson 08's demo (./demo 3): the lecture's comparison, a
 * vector add with copies, managed on demand, and prefetched. Included by demo.cu after the CPU
 * reference, grid_for and bench_with. */
#pragma once

/* ============================================================== kernels */
static __global__ void add_kernel(const float *a, const float *b, float *c, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

/* ============================================================== launchers */
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

/* ============================================================== the version */
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
    float *a0 = (float *)lab_xmalloc(bytes), *b0 = (float *)lab_xmalloc(bytes), *want = (float *)lab_xmalloc(bytes);
    lab_fill_f32(a0, n, 0.0f, 1.0f, lab_seed_derive(d->o->seed, "a"));
    lab_fill_f32(b0, n, 0.0f, 1.0f, lab_seed_derive(d->o->seed, "b"));
    for (size_t i = 0; i < n; ++i)
        want[i] = a0[i] + b0[i];

    float *pa = (float *)lab_xmalloc(bytes), *pb = (float *)lab_xmalloc(bytes), *pc = (float *)lab_xmalloc(bytes);
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

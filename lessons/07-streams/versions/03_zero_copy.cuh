/* Version 3 of lesson 07's demo (./demo 3): the kernel reading and writing mapped host memory
 * (zero-copy) against explicit copies, for a light and a heavy kernel. Included by demo.cu after
 * its shared helpers (vec_arg, run_sequential, check_add). */
#pragma once

/* Zero-copy: the kernel reads and writes host memory through mapped pointers. */
static void run_zero_copy(void *p)
{
    const vec_arg *a = (const vec_arg *)p;
    overload_add_launch(a->da, a->db, a->dc, a->n, a->rounds, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void zero_copy_v3(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    int can_map = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, d->o->device));
    if (!can_map) {
        printf("version 3 skipped: this device cannot map host memory\n\n");
        return;
    }
    const size_t n = d->o->quick ? ((size_t)1 << 20) : ((size_t)1 << 25);
    const size_t bytes = n * sizeof(float);
    float *ha, *hb, *hc, *ma, *mb, *mc, *da, *db, *dc;
    CUDA_CHECK(cudaMallocHost((void **)&ha, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hb, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hc, bytes));
    CUDA_CHECK(cudaHostAlloc((void **)&ma, bytes, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostAlloc((void **)&mb, bytes, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostAlloc((void **)&mc, bytes, cudaHostAllocMapped));
    CUDA_CHECK(cudaMalloc((void **)&da, bytes));
    CUDA_CHECK(cudaMalloc((void **)&db, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dc, bytes));
    lab_fill_f32(ha, n, 1.0f, 500.0f, lab_seed_derive(d->o->seed, "a"));
    lab_fill_f32(hb, n, 1.0f, 500.0f, lab_seed_derive(d->o->seed, "b"));
    memcpy(ma, ha, bytes);
    memcpy(mb, hb, bytes);

    /* The device's name for the mapped buffers. With unified addressing it is the host
     * pointer itself, but asking is what works everywhere. */
    float *ga, *gb, *gc;
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&ga, ma, 0));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&gb, mb, 0));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&gc, mc, 0));

    const double h2d_ceiling = lab_ceiling_h2d_gbps();
    const char *cols[] = { "kernel", "method", "ms", "link GB/s", "% of h2d ceiling", "vs copies" };
    lab_table *t = lab_table_new("Mapped zero-copy vs explicit copies (12 bytes per element over the link)",
                                 cols, 6);
    const int rounds_list[] = { 0, OVERLOAD_TASK_ROUNDS };
    for (int k = 0; k < 2; ++k) {
        vec_arg copies = { ha, hb, hc, da, db, dc, n, rounds_list[k], NULL, 0 };
        vec_arg mapped = { ga, gb, gc, ga, gb, gc, n, rounds_list[k], NULL, 0 };
        const double copy_ms = bench(d, run_sequential, &copies).median_ms;
        check_add(ha, hb, hc, n, rounds_list[k], "explicit copies");
        const double zc_ms = bench(d, run_zero_copy, &mapped).median_ms;
        check_add(ha, hb, mc, n, rounds_list[k], "zero-copy");
        char kname[64];
        if (rounds_list[k] == 0)
            snprintf(kname, sizeof kname, "light: c = a + b");
        else
            snprintf(kname, sizeof kname, "heavy: %d Newton rounds", rounds_list[k]);
        const double gb = 3.0 * bytes / 1e9;
        lab_table_rowf(t, "%s|%s|%.2f|%.1f|%.1f|%.2f", kname, "cudaMemcpy in, kernel, out", copy_ms,
                       gb / (copy_ms * 1e-3), 100.0 * gb / (copy_ms * 1e-3) / h2d_ceiling, 1.0);
        lab_table_rowf(t, "%s|%s|%.2f|%.1f|%.1f|%.2f", kname, "kernel on mapped memory", zc_ms,
                       gb / (zc_ms * 1e-3), 100.0 * gb / (zc_ms * 1e-3) / h2d_ceiling, copy_ms / zc_ms);
    }
    lab_demo_emit(d->demo, t, "zero_copy");

    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFreeHost(mc));
    CUDA_CHECK(cudaFreeHost(mb));
    CUDA_CHECK(cudaFreeHost(ma));
    CUDA_CHECK(cudaFreeHost(hc));
    CUDA_CHECK(cudaFreeHost(hb));
    CUDA_CHECK(cudaFreeHost(ha));
}

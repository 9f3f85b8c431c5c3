/* Version 1 of lesson 07's demo (./demo 1): host memory kinds. Copy bandwidth from pageable,
 * pinned and write-combined host memory in both directions, against the pinned ceiling, and how
 * fast the CPU itself reads each kind. Included by demo.cu after its shared helpers (demo_ctx,
 * bench, host_now_ms, copy_arg and run_copy). */
#pragma once

/* Eight independent sums: one running sum would be bound by the latency of the addition, not
 * by how fast memory delivers the data. */
static double host_read_gbps(const float *x, size_t n)
{
    double best = 1e30;
    volatile float sink = 0.0f;
    for (int rep = 0; rep < 3; ++rep) {
        const double t0 = host_now_ms();
        float s[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
        size_t i = 0;
        for (; i + 8 <= n; i += 8)
            for (int k = 0; k < 8; ++k)
                s[k] += x[i + k];
        for (; i < n; ++i)
            s[0] += x[i];
        sink = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
        const double ms = host_now_ms() - t0;
        if (ms < best)
            best = ms;
    }
    (void)sink;
    return (double)n * sizeof(float) / (best * 1e6);
}

static void memory_kinds_v1(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const size_t bytes = d->o->quick ? ((size_t)16 << 20) : ((size_t)256 << 20);
    /* Reading write-combined memory on the CPU is uncached and slow: keep that test short. */
    const size_t read_n = (d->o->quick ? ((size_t)4 << 20) : ((size_t)32 << 20)) / sizeof(float);
    float *pageable = (float *)lab_xmalloc(bytes);
    float *pinned, *wc, *dev;
    CUDA_CHECK(cudaMallocHost((void **)&pinned, bytes));
    CUDA_CHECK(cudaHostAlloc((void **)&wc, bytes, cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaMalloc((void **)&dev, bytes));
    /* Touch every page first: the first touch of a malloc'ed page is a page fault, and that
     * is not what the copy should be charged for. */
    memset(pageable, 0, bytes);
    memset(pinned, 0, bytes);
    memset(wc, 0, bytes);

    const double h2d_ceiling = lab_ceiling_h2d_gbps(), d2h_ceiling = lab_ceiling_d2h_gbps();
    const char *cols[] = { "memory", "allocated with", "direction", "GB/s", "% of pinned ceiling" };
    lab_table *t = lab_table_new("Host<->device copy bandwidth by host memory kind", cols, 5);
    const struct { const char *name, *how; float *p; } kinds[] = {
        { "pageable", "malloc", pageable },
        { "pinned", "cudaMallocHost", pinned },
        { "write-combined", "cudaHostAlloc(WriteCombined)", wc },
    };
    for (size_t k = 0; k < 3; ++k) {
        copy_arg up = { dev, kinds[k].p, bytes, cudaMemcpyHostToDevice };
        copy_arg down = { kinds[k].p, dev, bytes, cudaMemcpyDeviceToHost };
        const double up_gbps = bytes / (bench(d, run_copy, &up).median_ms * 1e6);
        const double down_gbps = bytes / (bench(d, run_copy, &down).median_ms * 1e6);
        lab_table_rowf(t, "%s|%s|%s|%.1f|%.1f", kinds[k].name, kinds[k].how, "host->device",
                       up_gbps, 100.0 * up_gbps / h2d_ceiling);
        lab_table_rowf(t, "%s|%s|%s|%.1f|%.1f", kinds[k].name, kinds[k].how, "device->host",
                       down_gbps, 100.0 * down_gbps / d2h_ceiling);
    }
    lab_demo_emit(d->demo, t, "bandwidth");

    const char *rcols[] = { "memory", "CPU read GB/s", "vs pageable" };
    lab_table *r = lab_table_new("CPU reading the same buffers (sum of 32 MiB, best of 3)", rcols, 3);
    const double base = host_read_gbps(pageable, read_n);
    for (size_t k = 0; k < 3; ++k) {
        const double g = k == 0 ? base : host_read_gbps(kinds[k].p, read_n);
        lab_table_rowf(r, "%s|%.2f|%.3f", kinds[k].name, g, g / base);
    }
    lab_demo_emit(d->demo, r, "host_reads");

    CUDA_CHECK(cudaFree(dev));
    CUDA_CHECK(cudaFreeHost(wc));
    CUDA_CHECK(cudaFreeHost(pinned));
    free(pageable);
}

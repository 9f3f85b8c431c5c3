/* 04_saxpy.cuh — version 4 of lesson 08's demo (./demo 4): multi-pass saxpy, copies against
 * managed memory on demand, prefetched, advised and pipelined (kernels/04_pipeline.cuh).
 * Included by demo.cu after the saxpy launchers and what versions 4 and 5 share. */
#pragma once

static void saxpy_v4(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const int passes = 8;
    float *x0, *y0, *want;
    const size_t n = saxpy_inputs(d, "version 4", passes, &x0, &y0, &want), bytes = n * sizeof(float);

    float *px = (float *)lab_xmalloc(bytes), *py = (float *)lab_xmalloc(bytes);
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

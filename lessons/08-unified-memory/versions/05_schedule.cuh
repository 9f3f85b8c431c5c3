/* 05_schedule.cuh — version 5 of lesson 08's demo (./demo 5): the pipeline's schedules
 * (kernels/05_schedules.cuh) swept, their timelines, and the goal. Included by demo.cu after
 * the saxpy launchers and what versions 4 and 5 share. */
#pragma once

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

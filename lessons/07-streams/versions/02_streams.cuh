/* Version 2 of lesson 07's demo (./demo 2): the lecture's overloaded vectorAdd without streams
 * (pageable, then pinned) against 1, 2, 4 ... 128 streams, each row against the overlap bound.
 * Holds the breadth-first stream schedule, the kernel-only launcher and the calibration that
 * makes the kernel as long as the copy in. Included by demo.cu after its shared helpers
 * (vec_arg, run_sequential, chunk_of, check_add). */
#pragma once

/* The lecture's schedule: one chunk per stream, issued breadth first (all copies in, all kernels,
 * all copies out). On Fermi that order decided whether anything overlapped; since Kepler's
 * Hyper-Q each stream has its own hardware queue and the order matters far less. */
static void run_streams(void *p)
{
    const vec_arg *a = (const vec_arg *)p;
    const size_t ns = (size_t)a->n_streams;
    for (size_t s = 0; s < ns; ++s) {
        size_t off, len;
        chunk_of(a->n, ns, s, &off, &len);
        CUDA_CHECK(cudaMemcpyAsync(a->da + off, a->ha + off, len * sizeof(float),
                                   cudaMemcpyHostToDevice, a->streams[s]));
        CUDA_CHECK(cudaMemcpyAsync(a->db + off, a->hb + off, len * sizeof(float),
                                   cudaMemcpyHostToDevice, a->streams[s]));
    }
    for (size_t s = 0; s < ns; ++s) {
        size_t off, len;
        chunk_of(a->n, ns, s, &off, &len);
        overload_add_launch(a->da + off, a->db + off, a->dc + off, len, a->rounds, a->streams[s]);
    }
    for (size_t s = 0; s < ns; ++s) {
        size_t off, len;
        chunk_of(a->n, ns, s, &off, &len);
        CUDA_CHECK(cudaMemcpyAsync(a->hc + off, a->dc + off, len * sizeof(float),
                                   cudaMemcpyDeviceToHost, a->streams[s]));
    }
    for (size_t s = 0; s < ns; ++s)
        CUDA_CHECK(cudaStreamSynchronize(a->streams[s]));
}

static void run_kernel_only(void *p)
{
    const vec_arg *a = (const vec_arg *)p;
    overload_add_launch(a->da, a->db, a->dc, a->n, a->rounds, 0);
}

/* Rounds that make the kernel take about as long as copying both inputs in: the largest stage,
 * so that overlap has something to hide on any GPU and any link. */
static int calibrate_rounds(const demo_ctx *d, vec_arg *a, double h2d_ms)
{
    const int probe = 64;
    a->rounds = probe;
    const double k_ms = bench(d, run_kernel_only, a).median_ms;
    int rounds = (int)lround(probe * h2d_ms / k_ms);
    if (rounds < OVERLOAD_MIN_ROUNDS)
        rounds = OVERLOAD_MIN_ROUNDS;
    return rounds;
}

/* What the overlap bound needs of the stages: their sum (the sequential time) and the longest. */
typedef struct stage_ms {
    double sum, mx;
} stage_ms;

/* The stages of the pinned vectorAdd, timed, and their table. Calibrates a->rounds on the way:
 * the kernel is made as long as the copy in. */
static stage_ms time_stages(const demo_ctx *d, vec_arg *a)
{
    const size_t n = a->n, bytes = n * sizeof(float);
    /* Stage times, each the whole array on its own: the ingredients of the overlap bound. */
    copy_arg in_a = { a->da, a->ha, bytes, cudaMemcpyHostToDevice };
    copy_arg out_c = { a->hc, a->dc, bytes, cudaMemcpyDeviceToHost };
    const double h2d_ms = 2.0 * bench(d, run_copy, &in_a).median_ms;
    const double d2h_ms = bench(d, run_copy, &out_c).median_ms;
    a->rounds = calibrate_rounds(d, a, h2d_ms);
    const double k_ms = bench(d, run_kernel_only, a).median_ms;
    const double sum = h2d_ms + k_ms + d2h_ms;
    const double mx = fmax(h2d_ms, fmax(k_ms, d2h_ms));

    const char *scols[] = { "stage", "ms", "share of sequential" };
    char title[160];
    snprintf(title, sizeof title, "Stages of vectorAdd, n = %zu, %d Newton rounds per element", n,
             a->rounds);
    lab_table *st = lab_table_new(title, scols, 3);
    lab_table_rowf(st, "%s|%.3f|%.3f", "copy a, b in (pinned)", h2d_ms, h2d_ms / sum);
    lab_table_rowf(st, "%s|%.3f|%.3f", "kernel", k_ms, k_ms / sum);
    lab_table_rowf(st, "%s|%.3f|%.3f", "copy c out (pinned)", d2h_ms, d2h_ms / sum);
    lab_demo_emit(d->demo, st, "stages");
    const stage_ms r = { sum, mx };
    return r;
}

static void streams_v2(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    /* The lecture's second machine: vectorAdd sobrecarga -n=100000000. */
    const size_t n = d->o->quick ? ((size_t)1 << 20) : (size_t)100000000;
    const size_t bytes = n * sizeof(float);
    const int max_streams = d->o->quick ? 16 : 128;
    float *pa = (float *)lab_xmalloc(bytes), *pb = (float *)lab_xmalloc(bytes), *pc = (float *)lab_xmalloc(bytes);
    float *ha, *hb, *hc, *da, *db, *dc;
    CUDA_CHECK(cudaMallocHost((void **)&ha, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hb, bytes));
    CUDA_CHECK(cudaMallocHost((void **)&hc, bytes));
    CUDA_CHECK(cudaMalloc((void **)&da, bytes));
    CUDA_CHECK(cudaMalloc((void **)&db, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dc, bytes));
    lab_fill_f32(pa, n, 1.0f, 500.0f, lab_seed_derive(d->o->seed, "a"));
    lab_fill_f32(pb, n, 1.0f, 500.0f, lab_seed_derive(d->o->seed, "b"));
    memcpy(ha, pa, bytes);
    memcpy(hb, pb, bytes);
    memset(pc, 0, bytes);

    cudaStream_t *streams = (cudaStream_t *)lab_xmalloc(max_streams * sizeof(cudaStream_t));
    for (int s = 0; s < max_streams; ++s)
        CUDA_CHECK(cudaStreamCreate(&streams[s]));

    vec_arg a = { ha, hb, hc, da, db, dc, n, 0, streams, 1 };
    const stage_ms stages = time_stages(d, &a);
    const double sum = stages.sum, mx = stages.mx;

    const double link_gb = 3.0 * bytes / 1e9;
    const double h2d_ceiling = lab_ceiling_h2d_gbps();
    const char *cols[] = { "schedule", "streams", "ms", "speedup vs pageable", "overlap bound ms",
                           "% of ideal speedup", "link GB/s", "% of h2d ceiling" };
    lab_table *t = lab_table_new("vectorAdd with overload: no streams vs streams (lecture: 210 -> 74 ms)",
                                 cols, 8);

    vec_arg pg = a;
    pg.ha = pa;
    pg.hb = pb;
    pg.hc = pc;
    const double pageable_ms = bench(d, run_sequential, &pg).median_ms;
    check_add(pa, pb, pc, n, a.rounds, "no streams, pageable");
    lab_table_rowf(t, "%s|%d|%.2f|%.2f|%.2f|%.1f|%.1f|%.1f", "no streams: pageable", 0, pageable_ms,
                   1.0, sum, 100.0 * sum / pageable_ms, link_gb / (pageable_ms * 1e-3),
                   100.0 * link_gb / (pageable_ms * 1e-3) / h2d_ceiling);
    const double pinned_ms = bench(d, run_sequential, &a).median_ms;
    check_add(pa, pb, hc, n, a.rounds, "no streams, pinned");
    lab_table_rowf(t, "%s|%d|%.2f|%.2f|%.2f|%.1f|%.1f|%.1f", "no streams: pinned", 0, pinned_ms,
                   pageable_ms / pinned_ms, sum, 100.0 * sum / pinned_ms, link_gb / (pinned_ms * 1e-3),
                   100.0 * link_gb / (pinned_ms * 1e-3) / h2d_ceiling);
    for (int ns = 1; ns <= max_streams; ns *= 2) {
        a.n_streams = ns;
        memset(hc, 0, bytes);
        const double ms = bench(d, run_streams, &a).median_ms;
        check_add(pa, pb, hc, n, a.rounds, "streams");
        /* With ns equal chunks the slowest stage is paid in full and the others only for one
         * chunk each: the pipeline's fill and drain. */
        const double bound = mx + (sum - mx) / ns;
        lab_table_rowf(t, "%s|%d|%.2f|%.2f|%.2f|%.1f|%.1f|%.1f", "streams: pinned + async", ns, ms,
                       pageable_ms / ms, bound, 100.0 * bound / ms, link_gb / (ms * 1e-3),
                       100.0 * link_gb / (ms * 1e-3) / h2d_ceiling);
    }
    lab_demo_emit(d->demo, t, "streams");

    for (int s = 0; s < max_streams; ++s)
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    free(streams);
    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFreeHost(hc));
    CUDA_CHECK(cudaFreeHost(hb));
    CUDA_CHECK(cudaFreeHost(ha));
    free(pc);
    free(pb);
    free(pa);
}

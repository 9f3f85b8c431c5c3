/* Version 6 of lesson 07's demo (./demo 6): the graded task's schedule (depth first, chunk c in
 * stream c % 4) at the task's speed-case size, sequential against 4 streams x 2 ... 64 chunks, as
 * a fraction of the ideal speedup. Included by demo.cu after its shared helpers (copy_arg,
 * run_copy, chunk_of). */
#pragma once

typedef struct pipe_arg {
    float *host, *dev;
    size_t n;
    cudaStream_t *streams;
    int n_streams, n_chunks;
} pipe_arg;

/* The task's schedule, depth first: each chunk's copy in, kernel and copy out back to back in
 * its stream, chunk c in stream c % n_streams. One chunk in one stream is the sequential code. */
static void run_pipe(void *p)
{
    const pipe_arg *a = (const pipe_arg *)p;
    for (size_t c = 0; c < (size_t)a->n_chunks; ++c) {
        size_t off, len;
        chunk_of(a->n, (size_t)a->n_chunks, c, &off, &len);
        if (len == 0)
            continue;
        const cudaStream_t s = a->streams[c % (size_t)a->n_streams];
        CUDA_CHECK(cudaMemcpyAsync(a->dev + off, a->host + off, len * sizeof(float),
                                   cudaMemcpyHostToDevice, s));
        overload_sqrt_launch(a->dev + off, len, OVERLOAD_TASK_ROUNDS, s);
        CUDA_CHECK(cudaMemcpyAsync(a->host + off, a->dev + off, len * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
    }
    for (int s = 0; s < a->n_streams; ++s)
        CUDA_CHECK(cudaStreamSynchronize(a->streams[s]));
}

static void run_task_kernel(void *p)
{
    const pipe_arg *a = (const pipe_arg *)p;
    overload_sqrt_launch(a->dev, a->n, OVERLOAD_TASK_ROUNDS, 0);
}

static void task_pipeline_v6(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    /* The task's speed case: 2^26 floats, 4 streams. The kernel runs in place and sqrt is not
     * idempotent, so the timed calls keep transforming the array; only the timing is read here
     * (the task's harness restores its input before every call and verifies). */
    const size_t n = d->o->quick ? ((size_t)1 << 20) : ((size_t)1 << 26);
    const size_t bytes = n * sizeof(float);
    enum { N_STREAMS = 4 };
    float *h, *dev;
    CUDA_CHECK(cudaMallocHost((void **)&h, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dev, bytes));
    lab_fill_f32(h, n, 2.0f, 1000.0f, lab_seed_derive(d->o->seed, "x"));
    cudaStream_t streams[N_STREAMS];
    for (int s = 0; s < N_STREAMS; ++s)
        CUDA_CHECK(cudaStreamCreate(&streams[s]));

    copy_arg in = { dev, h, bytes, cudaMemcpyHostToDevice };
    copy_arg out = { h, dev, bytes, cudaMemcpyDeviceToHost };
    pipe_arg a = { h, dev, n, streams, 1, 1 };
    const double h2d_ms = bench(d, run_copy, &in).median_ms;
    const double k_ms = bench(d, run_task_kernel, &a).median_ms;
    const double d2h_ms = bench(d, run_copy, &out).median_ms;
    const double sum = h2d_ms + k_ms + d2h_ms, mx = fmax(h2d_ms, fmax(k_ms, d2h_ms));
    const double seq_ms = bench(d, run_pipe, &a).median_ms;

    const char *cols[] = { "streams", "chunks", "ms", "speedup", "ideal speedup", "% of ideal" };
    char title[192];
    snprintf(title, sizeof title, "Task pipeline, n = %zu, %d rounds: stages in %.2f + kernel %.2f + "
             "out %.2f ms", n, OVERLOAD_TASK_ROUNDS, h2d_ms, k_ms, d2h_ms);
    lab_table *t = lab_table_new(title, cols, 6);
    lab_table_rowf(t, "%d|%d|%.2f|%.2f|%.2f|%.1f", 1, 1, seq_ms, 1.0, seq_ms / sum, 100.0 * sum / seq_ms);
    a.n_streams = N_STREAMS;
    for (int chunks = 2; chunks <= 64; chunks *= 2) {
        a.n_chunks = chunks;
        const double ms = bench(d, run_pipe, &a).median_ms;
        /* Ideal: the sequential time over the overlap bound for this many chunks. */
        const double bound = mx + (sum - mx) / chunks;
        lab_table_rowf(t, "%d|%d|%.2f|%.2f|%.2f|%.1f", N_STREAMS, chunks, ms, seq_ms / ms,
                       seq_ms / bound, 100.0 * (seq_ms / ms) / (seq_ms / bound));
    }
    lab_demo_emit(d->demo, t, "task_pipeline");

    for (int s = 0; s < N_STREAMS; ++s)
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFree(dev));
    CUDA_CHECK(cudaFreeHost(h));
}

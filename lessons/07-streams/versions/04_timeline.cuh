/* Version 4 of lesson 07's demo (./demo 4): a timeline of 4 streams x 8 chunks from events
 * recorded in each stream, drawn in the terminal and, with --csv DIR, written as an SVG. Holds
 * the recording, both drawings and the two tables. Included by demo.cu after its shared helpers
 * (demo_ctx, chunk_of). */
#pragma once

enum { TL_STREAMS = 4, TL_CHUNKS = 8, TL_OPS = 3 };
static const char *const tl_op_name[TL_OPS] = { "copy in", "kernel", "copy out" };
static const char tl_op_mark[TL_OPS] = { 'H', 'K', 'D' };
static const char *const tl_op_color[TL_OPS] = { "#4e79a7", "#f28e2b", "#59a14f" };

typedef struct tl_span { int stream, chunk, op; double start, end; } tl_span;

static void tl_draw_terminal(const tl_span *sp, size_t n, double end_ms)
{
    enum { WIDTH = 96 };
    printf("Timeline (H copy in, K kernel, D copy out; one column = %.3f ms)\n", end_ms / WIDTH);
    for (int s = 0; s < TL_STREAMS; ++s) {
        char row[WIDTH + 1];
        memset(row, '.', WIDTH);
        row[WIDTH] = 0;
        for (size_t i = 0; i < n; ++i) {
            if (sp[i].stream != s)
                continue;
            int a = (int)(sp[i].start / end_ms * WIDTH), b = (int)ceil(sp[i].end / end_ms * WIDTH);
            if (b <= a)
                b = a + 1;
            for (int x = a; x < b && x < WIDTH; ++x)
                row[x] = tl_op_mark[sp[i].op];
        }
        printf("  stream %d |%s|\n", s, row);
    }
    printf("\n");
}

/* DIR/<lesson>_timeline.svg; returns 0, or -1 after saying why not. */
static int tl_write_svg(const tl_span *sp, size_t n, double end_ms, const char *dir, const char *lesson)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s_timeline.svg", dir, lesson);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "error: could not write %s\n", path);
        return -1;
    }
    const double left = 80, top = 40, lane = 36, width = 880;
    const double height = top + TL_STREAMS * lane + 60;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", left + width + 20, height);
    fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">%d streams, %d chunks: copies and kernels "
               "as recorded by events</text>\n", left, TL_STREAMS, TL_CHUNKS);
    for (int s = 0; s < TL_STREAMS; ++s)
        fprintf(f, "<text x=\"8\" y=\"%.1f\">stream %d</text>\n", top + s * lane + lane * 0.6, s);
    for (size_t i = 0; i < n; ++i) {
        const double x = left + sp[i].start / end_ms * width;
        const double w = fmax((sp[i].end - sp[i].start) / end_ms * width, 0.5);
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
                   "stroke=\"white\" stroke-width=\"0.5\"><title>chunk %d %s: %.3f-%.3f ms</title></rect>\n",
                x, top + sp[i].stream * lane + 4, w, lane - 8, tl_op_color[sp[i].op], sp[i].chunk,
                tl_op_name[sp[i].op], sp[i].start, sp[i].end);
    }
    const double axis_y = top + TL_STREAMS * lane + 8;
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", left,
            axis_y, left + width, axis_y);
    for (int k = 0; k <= 10; ++k) {
        const double x = left + width * k / 10.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"black\"/>"
                   "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.2f</text>\n",
                x, axis_y, x, axis_y + 5, x, axis_y + 18, end_ms * k / 10.0);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">time (ms)</text>\n", left + width,
            axis_y + 40);
    for (int op = 0; op < TL_OPS; ++op)
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                left + op * 120, axis_y + 30, tl_op_color[op], left + op * 120 + 16, axis_y + 40,
                tl_op_name[op]);
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "error: could not finish %s\n", path);
        return -1;
    }
    printf("timeline written to %s\n\n", path);
    return 0;
}

/* The recorded pass as spans, one per operation, in ms from the origin event; returns how many.
 * busy[op] sums each operation's time and *end_ms is the last end. */
static size_t tl_collect(cudaEvent_t origin, cudaEvent_t (*marks)[TL_OPS + 1], tl_span *spans,
                         double busy[TL_OPS], double *end_ms)
{
    size_t ns = 0;
    for (int c = 0; c < TL_CHUNKS; ++c) {
        float t[TL_OPS + 1];
        for (int k = 0; k <= TL_OPS; ++k)
            CUDA_CHECK(cudaEventElapsedTime(&t[k], origin, marks[c][k]));
        for (int k = 0; k < TL_OPS; ++k) {
            spans[ns].stream = c % TL_STREAMS;
            spans[ns].chunk = c;
            spans[ns].op = k;
            spans[ns].start = t[k];
            spans[ns].end = t[k + 1];
            busy[k] += t[k + 1] - t[k];
            *end_ms = fmax(*end_ms, t[k + 1]);
            ++ns;
        }
    }
    return ns;
}

static void timeline_v4(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const size_t n = d->o->quick ? ((size_t)1 << 20) : ((size_t)1 << 26);
    const size_t bytes = n * sizeof(float);
    float *h, *dev;
    CUDA_CHECK(cudaMallocHost((void **)&h, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dev, bytes));
    lab_fill_f32(h, n, 2.0f, 1000.0f, lab_seed_derive(d->o->seed, "x"));
    cudaStream_t streams[TL_STREAMS];
    for (int s = 0; s < TL_STREAMS; ++s)
        CUDA_CHECK(cudaStreamCreate(&streams[s]));
    /* Four marks per chunk: before the copy in, then after each of its three operations. */
    cudaEvent_t origin, marks[TL_CHUNKS][TL_OPS + 1];
    CUDA_CHECK(cudaEventCreate(&origin));
    for (int c = 0; c < TL_CHUNKS; ++c)
        for (int k = 0; k <= TL_OPS; ++k)
            CUDA_CHECK(cudaEventCreate(&marks[c][k]));

    /* The first pass warms up (module load, first-touch costs); the second is recorded. */
    for (int pass = 0; pass < 2; ++pass) {
        CUDA_CHECK(cudaEventRecord(origin, 0));
        for (int c = 0; c < TL_CHUNKS; ++c) {
            size_t off, len;
            chunk_of(n, TL_CHUNKS, (size_t)c, &off, &len);
            const cudaStream_t s = streams[c % TL_STREAMS];
            CUDA_CHECK(cudaEventRecord(marks[c][0], s));
            CUDA_CHECK(cudaMemcpyAsync(dev + off, h + off, len * sizeof(float),
                                       cudaMemcpyHostToDevice, s));
            CUDA_CHECK(cudaEventRecord(marks[c][1], s));
            overload_sqrt_launch(dev + off, len, OVERLOAD_TASK_ROUNDS, s);
            CUDA_CHECK(cudaEventRecord(marks[c][2], s));
            CUDA_CHECK(cudaMemcpyAsync(h + off, dev + off, len * sizeof(float),
                                       cudaMemcpyDeviceToHost, s));
            CUDA_CHECK(cudaEventRecord(marks[c][3], s));
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        if (pass == 0)
            lab_fill_f32(h, n, 2.0f, 1000.0f, lab_seed_derive(d->o->seed, "x"));
    }

    tl_span spans[TL_CHUNKS * TL_OPS];
    double end_ms = 0, busy[TL_OPS] = { 0, 0, 0 };
    const size_t ns = tl_collect(origin, marks, spans, busy, &end_ms);

    const char *cols[] = { "stream", "chunk", "operation", "start ms", "end ms", "ms" };
    lab_table *t = lab_table_new("Timeline: every operation, from events recorded in its stream", cols, 6);
    for (size_t i = 0; i < ns; ++i)
        lab_table_rowf(t, "%d|%d|%s|%.3f|%.3f|%.3f", spans[i].stream, spans[i].chunk,
                       tl_op_name[spans[i].op], spans[i].start, spans[i].end,
                       spans[i].end - spans[i].start);
    lab_demo_emit(d->demo, t, "timeline");
    tl_draw_terminal(spans, ns, end_ms);

    const double sum = busy[0] + busy[1] + busy[2];
    const char *scols[] = { "measure", "ms", "of the sum" };
    lab_table *s = lab_table_new("Timeline summary: overlap is the gap between the two", scols, 3);
    lab_table_rowf(s, "%s|%.3f|%.3f", "sum of all operations", sum, 1.0);
    lab_table_rowf(s, "%s|%.3f|%.3f", "first start to last end", end_ms, end_ms / sum);
    lab_demo_emit(d->demo, s, "timeline_summary");
    if (d->o->csv_dir && tl_write_svg(spans, ns, end_ms, d->o->csv_dir, d->demo->lesson) != 0)
        lab_demo_fail(d->demo, LAB_EXIT_USAGE);

    for (int c = 0; c < TL_CHUNKS; ++c)
        for (int k = 0; k <= TL_OPS; ++k)
            CUDA_CHECK(cudaEventDestroy(marks[c][k]));
    CUDA_CHECK(cudaEventDestroy(origin));
    for (int s2 = 0; s2 < TL_STREAMS; ++s2)
        CUDA_CHECK(cudaStreamDestroy(streams[s2]));
    CUDA_CHECK(cudaFree(dev));
    CUDA_CHECK(cudaFreeHost(h));
}

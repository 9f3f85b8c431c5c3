// Timing on the GPU's own clock: CUDA events around each call, summarized by the median.
#include "lab.h"

#include <stdlib.h>
#include <time.h>

void lab_timer_init(lab_timer *t, cudaStream_t stream)
{
    t->stream = stream;
    CUDA_CHECK(cudaEventCreate(&t->start));
    CUDA_CHECK(cudaEventCreate(&t->stop));
}

void lab_timer_start(lab_timer *t) { CUDA_CHECK(cudaEventRecord(t->start, t->stream)); }

float lab_timer_stop(lab_timer *t)
{
    float ms = 0;
    CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

void lab_timer_destroy(lab_timer *t)
{
    CUDA_CHECK(cudaEventDestroy(t->start));
    CUDA_CHECK(cudaEventDestroy(t->stop));
}

// Writing a buffer twice the size of L2 evicts whatever the previous call left there, so a
// timed call starts from DRAM as it would in a real program's first touch.
double lab_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void lab_flush_l2(void)
{
    static void *buf;
    static size_t bytes;
    if (!buf) {
        int dev, l2 = 0;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
        CUDA_CHECK(cudaMalloc(&buf, bytes));
    }
    CUDA_CHECK(cudaMemsetAsync(buf, 0, bytes, 0));
}

lab_timing lab_bench(lab_bench_fn fn, void *arg, const lab_bench_opts *opts)
{
    int reps = opts->reps > 0 ? opts->reps : 1;
    for (int i = 0; i < opts->warmup; i++) {
        if (opts->before)
            opts->before(arg);
        fn(arg);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    double *ms = (double *)malloc((size_t)reps * sizeof *ms);
    if (!ms)
        abort();
    lab_timer t;
    lab_timer_init(&t, 0);
    for (int r = 0; r < reps; r++) {
        if (opts->before)
            opts->before(arg);
        if (opts->flush_l2)
            lab_flush_l2();
        lab_timer_start(&t);
        fn(arg);
        ms[r] = lab_timer_stop(&t);
    }
    lab_timer_destroy(&t);
    lab_timing s = lab_timing_summarize(ms, (size_t)reps);
    free(ms);
    return s;
}

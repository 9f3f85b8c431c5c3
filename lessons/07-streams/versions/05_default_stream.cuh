/* Version 5 of lesson 07's demo (./demo 5): who waits for whom. One-block kernels that spin for
 * a fixed wall time, launched into created, non-blocking, legacy default and per-thread streams:
 * the legacy default stream's implicit synchronization, and how to avoid it. Included by demo.cu
 * after its shared helpers (demo_ctx, host_now_ms). */
#pragma once

static __device__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Occupies one block for `ns` nanoseconds of wall time: the GPU is nearly idle, so two of
 * these can only take as long as one when their streams let them run side by side. */
static __global__ void spin_kernel(unsigned long long ns)
{
    const unsigned long long t0 = global_ns();
    while (global_ns() - t0 < ns) {
    }
}

/* Launches spin kernels on s1, then `middle` (when not NULL-flagged), then s2; returns the
 * median wall time of the whole group. */
static double spin_group_ms(const demo_ctx *d, cudaStream_t s1, int use_middle, cudaStream_t middle,
                            cudaStream_t s2, unsigned long long ns)
{
    double ms[16];
    const int reps = d->reps < 16 ? d->reps : 16;
    for (int r = -1; r < reps; ++r) {
        const double t0 = host_now_ms();
        spin_kernel<<<1, 32, 0, s1>>>(ns);
        CUDA_LAUNCH_CHECK();
        if (use_middle) {
            spin_kernel<<<1, 32, 0, middle>>>(ns);
            CUDA_LAUNCH_CHECK();
        }
        spin_kernel<<<1, 32, 0, s2>>>(ns);
        CUDA_LAUNCH_CHECK();
        CUDA_CHECK(cudaDeviceSynchronize());
        if (r >= 0)
            ms[r] = host_now_ms() - t0;
    }
    return lab_median(ms, (size_t)reps);
}

static void default_stream_v5(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const unsigned long long spin_ns = d->o->quick ? 500000ull : 2000000ull;
    const double one = spin_ns * 1e-6;
    cudaStream_t b1, b2, nb1, nb2;
    CUDA_CHECK(cudaStreamCreate(&b1));
    CUDA_CHECK(cudaStreamCreate(&b2));
    CUDA_CHECK(cudaStreamCreateWithFlags(&nb1, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&nb2, cudaStreamNonBlocking));

    const char *cols[] = { "launches (one block each)", "ms", "in kernel lengths" };
    char title[128];
    snprintf(title, sizeof title, "Who waits for whom: kernels of %.1f ms each", one);
    lab_table *t = lab_table_new(title, cols, 3);
    double ms = spin_group_ms(d, b1, 0, 0, b2, spin_ns);
    lab_table_rowf(t, "%s|%.2f|%.2f", "s1, s2 (cudaStreamCreate)", ms, ms / one);
    ms = spin_group_ms(d, b1, 1, 0, b2, spin_ns);
    lab_table_rowf(t, "%s|%.2f|%.2f", "s1, legacy stream 0, s2 (cudaStreamCreate)", ms, ms / one);
    ms = spin_group_ms(d, nb1, 1, 0, nb2, spin_ns);
    lab_table_rowf(t, "%s|%.2f|%.2f", "s1, legacy stream 0, s2 (cudaStreamNonBlocking)", ms, ms / one);
    ms = spin_group_ms(d, b1, 1, cudaStreamPerThread, b2, spin_ns);
    lab_table_rowf(t, "%s|%.2f|%.2f", "s1, cudaStreamPerThread, s2 (cudaStreamCreate)", ms, ms / one);
    lab_demo_emit(d->demo, t, "default_stream");

    CUDA_CHECK(cudaStreamDestroy(nb2));
    CUDA_CHECK(cudaStreamDestroy(nb1));
    CUDA_CHECK(cudaStreamDestroy(b2));
    CUDA_CHECK(cudaStreamDestroy(b1));
}

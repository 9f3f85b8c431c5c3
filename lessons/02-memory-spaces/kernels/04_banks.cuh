// Version 4 of lesson 02's demo (./demo 4): shared-memory bank conflicts. One warp reads words
// lane·stride apart with dependent loads; the cycles per access against stride 1 show the
// gcd(stride, 32)-way conflicts. Included by demo.cu after BANK_WORDS, gcd_u and demo_ctx.
#pragma once

// --- bank conflicts: one warp, dependent loads from word lane * stride. The array holds zeros,
// so the address never changes, but the compiler cannot know it and must wait for each load.
static __global__ void bank_probe(unsigned stride, int iters, unsigned *sink, long long *cycles)
{
    __shared__ unsigned s_words[BANK_WORDS];
    for (int k = threadIdx.x; k < BANK_WORDS; k += blockDim.x) s_words[k] = 0;
    __syncthreads();
    const unsigned base = threadIdx.x * stride;
    unsigned v = 0;
    for (int k = 0; k < iters; ++k) v = s_words[base + v];
    const long long t0 = clock64();
    for (int k = 0; k < iters; ++k) v = s_words[base + v];
    const long long t1 = clock64();
    sink[threadIdx.x] = v;
    if (threadIdx.x == 0) *cycles = t1 - t0;
}

static void run_banks_v4(void *arg)
{
    const demo_ctx *c = (const demo_ctx *)arg;
    lab_table *t = c->table;
    static const unsigned strides[] = {1, 2, 3, 4, 8, 16, 17, 32, 33};
    const int iters = c->quick ? 1 << 12 : 1 << 16;
    unsigned *d_sink;
    long long *d_cycles;
    CUDA_CHECK(cudaMalloc(&d_sink, 32 * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
    double base = 0.0;
    for (size_t i = 0; i < sizeof strides / sizeof *strides; ++i) {
        bank_probe<<<1, 32>>>(strides[i], iters, d_sink, d_cycles);
        CUDA_LAUNCH_CHECK();
        long long cycles;
        CUDA_CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
        const double per = (double)cycles / iters;
        if (i == 0) base = per;
        lab_table_rowf(t, "%u|%u|%.1f|%.2f", strides[i], gcd_u(strides[i], 32), per, per / base);
    }
    CUDA_CHECK(cudaFree(d_sink));
    CUDA_CHECK(cudaFree(d_cycles));
}

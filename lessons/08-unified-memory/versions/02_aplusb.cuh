/* 02_aplusb.cuh — version 2 of lesson 08's demo (./demo 2): the lecture's AplusB three ways,
 * cudaMalloc and a copy, cudaMallocManaged, a __managed__ variable. Included by demo.cu after
 * demo_ctx and host_now_ms. */
#pragma once

/* ============================================================== CPU reference */
static int aplusb_ok(const int *ret, int a, int b)
{
    for (int i = 0; i < APLUSB_N; ++i)
        if (ret[i] != a + b + i)
            return 0;
    return 1;
}

/* ============================================================== kernels */
static __global__ void aplusb_kernel(int *ret, int a, int b)
{
    ret[threadIdx.x] = a + b + threadIdx.x;
}

/* A __managed__ variable: a global the host and the device both name directly. */
static __device__ __managed__ int aplusb_ret[APLUSB_N];

static __global__ void aplusb_global_kernel(int a, int b)
{
    aplusb_ret[threadIdx.x] = a + b + threadIdx.x;
}

/* ============================================================== the version */
static void aplusb_v2(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const int a = 10, b = 100;
    const char *cols[] = { "way", "host code needs", "ms", "ret[0]", "ret[999]", "all correct" };
    lab_table *t = lab_table_new("The lecture's AplusB, three ways (1000 ints, first call)", cols, 6);

    double t0 = host_now_ms();
    int *dev_ret, *host_ret = (int *)lab_xmalloc(APLUSB_N * sizeof(int));
    CUDA_CHECK(cudaMalloc((void **)&dev_ret, APLUSB_N * sizeof(int)));
    aplusb_kernel<<<1, APLUSB_N>>>(dev_ret, a, b);
    CUDA_LAUNCH_CHECK();
    /* cudaMemcpyDefault: with unified addressing the runtime tells host from device pointers. */
    CUDA_CHECK(cudaMemcpy(host_ret, dev_ret, APLUSB_N * sizeof(int), cudaMemcpyDefault));
    double ms = host_now_ms() - t0;
    lab_table_rowf(t, "%s|%s|%.3f|%d|%d|%s", "cudaMalloc + cudaMemcpy", "two buffers, one copy", ms,
                   host_ret[0], host_ret[APLUSB_N - 1], aplusb_ok(host_ret, a, b) ? "yes" : "NO");
    CUDA_CHECK(cudaFree(dev_ret));
    free(host_ret);

    t0 = host_now_ms();
    int *ret = (int *)um_alloc(APLUSB_N * sizeof(int), "AplusB");
    aplusb_kernel<<<1, APLUSB_N>>>(ret, a, b);
    CUDA_LAUNCH_CHECK();
    /* Kernel launches are asynchronous: the CPU may read only after the GPU is done. */
    CUDA_CHECK(cudaDeviceSynchronize());
    ms = host_now_ms() - t0;
    lab_table_rowf(t, "%s|%s|%.3f|%d|%d|%s", "cudaMallocManaged", "one pointer, a sync", ms, ret[0],
                   ret[APLUSB_N - 1], aplusb_ok(ret, a, b) ? "yes" : "NO");
    CUDA_CHECK(cudaFree(ret));

    t0 = host_now_ms();
    aplusb_global_kernel<<<1, APLUSB_N>>>(a, b);
    CUDA_LAUNCH_CHECK();
    CUDA_CHECK(cudaDeviceSynchronize());
    ms = host_now_ms() - t0;
    lab_table_rowf(t, "%s|%s|%.3f|%d|%d|%s", "__device__ __managed__ int ret[1000]",
                   "no allocation, a sync", ms, aplusb_ret[0], aplusb_ret[APLUSB_N - 1],
                   aplusb_ok(aplusb_ret, a, b) ? "yes" : "NO");
    lab_demo_emit(d->demo, t, "aplusb");
}

// Device memory kept between a task's calls (lab_device_alloc and friends, common/device.cu):
// a freed block stays allocated and comes back for the same request, another size gets its
// own, and lab_device_release gives the memory back to the driver. One line per failed check;
// exits 1 on any.
#include "lab.h"

#include <stdio.h>

static int failed;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failed |= !ok;
}

static size_t free_bytes(void)
{
    size_t free_b = 0, total = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total));
    return free_b;
}

int main(void)
{
    lab_device_open(0);
    const size_t mib = 1 << 20, big = 256 * mib;
    // the driver's own granularity and pools aside, 256 MiB shows in cudaMemGetInfo
    const size_t slack = 64 * mib;

    size_t before = free_bytes();
    void *p = NULL, *q = NULL, *r = NULL;
    lab_device_alloc(&p, big);
    check(before - free_bytes() + slack >= big, "an allocation takes device memory");
    size_t held = free_bytes();
    lab_device_free(p);
    check(free_bytes() + slack <= held + big, "a freed block stays allocated (kept)");
    lab_device_alloc(&q, big);
    check(q == p, "the same size gets the kept block back");
    lab_device_alloc(&r, big / 2);
    check(r != p, "another size gets a block of its own");
    lab_device_free(q);
    lab_device_free(r);

    const struct cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t a = NULL, b = NULL;
    lab_array_alloc(&a, &desc, 4096, 4096);
    lab_array_free(a);
    lab_array_alloc(&b, &desc, 4096, 4096);
    check(b == a, "an array of the same format and extent gets the kept one back");
    lab_array_free(b);

    held = free_bytes();
    lab_device_release();
    check(free_bytes() >= held + big + big / 2 + 64 * mib - slack,
          "release gives every kept block back to the driver");

    void *own = NULL;
    CUDA_CHECK(cudaMalloc(&own, big));
    held = free_bytes();
    lab_device_free(own);
    check(free_bytes() + slack >= held + big, "a block the table never handed out is freed at once");
    return failed;
}

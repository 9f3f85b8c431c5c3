// The GPU's fills against the CPU's: every element of every kind, at sizes around the CPU's
// chunk and the GPU's grid, bit for bit. Prints one line per mismatching fill; exits 1 on any.
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const char *kind, size_t n, const void *cpu, const void *d_gpu, size_t size)
{
    void *gpu = lab_xmalloc(n * size + 1);
    CUDA_CHECK(cudaMemcpy(gpu, d_gpu, n * size, cudaMemcpyDeviceToHost));
    size_t first = n;
    for (size_t i = 0; i < n && first == n; i++)
        if (memcmp((const char *)cpu + i * size, (const char *)gpu + i * size, size))
            first = i;
    free(gpu);
    if (first == n)
        return 0;
    printf("%s fill of %zu: the GPU's element %zu differs from the CPU's\n", kind, n, first);
    return 1;
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    const size_t sizes[] = {1, 255, 1000003, (3u << 20) + 17};
    int bad = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const size_t n = sizes[k];
        const uint64_t seed = lab_seed_derive(1234 + k, "draw");
        void *h = lab_xmalloc(n * 8), *d;
        CUDA_CHECK(cudaMalloc(&d, n * 8));
        lab_fill_f32((float *)h, n, -1.0f, 1.0f, seed);
        lab_fill_f32_device((float *)d, n, -1.0f, 1.0f, seed);
        bad |= compare("f32 [-1, 1)", n, h, d, 4);
        lab_fill_f32((float *)h, n, 2.0f, 1000.0f, seed);
        lab_fill_f32_device((float *)d, n, 2.0f, 1000.0f, seed);
        bad |= compare("f32 [2, 1000)", n, h, d, 4);
        lab_fill_f64((double *)h, n, -1.0, 1.0, seed);
        lab_fill_f64_device((double *)d, n, -1.0, 1.0, seed);
        bad |= compare("f64", n, h, d, 8);
        lab_fill_i32((int32_t *)h, n, 0, INT32_MAX, seed);
        lab_fill_i32_device((int32_t *)d, n, 0, INT32_MAX, seed);
        bad |= compare("i32 [0, INT32_MAX]", n, h, d, 4);
        lab_fill_i32((int32_t *)h, n, INT32_MIN, INT32_MAX, seed);
        lab_fill_i32_device((int32_t *)d, n, INT32_MIN, INT32_MAX, seed);
        bad |= compare("i32 [INT32_MIN, INT32_MAX]", n, h, d, 4);
        lab_fill_u8((uint8_t *)h, n, 0, 99, seed);
        lab_fill_u8_device((uint8_t *)d, n, 0, 99, seed);
        bad |= compare("u8 [0, 99]", n, h, d, 1);
        CUDA_CHECK(cudaFree(d));
        free(h);
    }
    if (!bad)
        printf("every GPU fill matches the CPU's\n");
    return bad;
}

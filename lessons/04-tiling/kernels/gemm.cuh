/* What every rung of lesson 04's ladder shares: the problem a version's launcher is handed
 * (lab_demo runs and lab_bench times `void gemm_vN(void *)`), the panel width of the Spanish lecture's
 * kernels, and a 16-byte load. C = A·B in FP32, row-major: A M×K, B K×N, C M×N, all on the
 * device. */
#pragma once
#include "lab.h"

typedef struct gemm_problem {
    const float *A, *B;
    float *C;
    int M, N, K;
} gemm_problem;

/* The Spanish lecture's panel product, C (n×n) = A (n×W) · B (W×n): rungs 1-3 exist only for W = 32.
 * Each launches one 32×32 block per 32×32 tile of C, its kernel taking (a, b, c, n). */
enum { PANEL_W = 32 };
typedef void (*panel_kernel)(const float *a, const float *b, float *c, int n);

static void launch_panel(panel_kernel kernel, const void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    const dim3 block(PANEL_W, PANEL_W), grid(p->N / PANEL_W, p->M / PANEL_W);
    kernel<<<grid, block>>>(p->A, p->B, p->C, p->N);
    CUDA_LAUNCH_CHECK();
}

/* One 16-byte shared or global load into four registers (src must be 16-byte aligned). A
 * float array is not guaranteed that alignment, so it is never the float4's target. */
static __device__ __forceinline__ void load4(float *dst, const float *src)
{
    const float4 v = *reinterpret_cast<const float4 *>(src);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
}

/* What every rung of lesson 04's ladder shares: the problem a version's launcher is handed
 * (lab_demo runs and lab_bench times `void gemm_vN(void *)`), the panel width of seed 001's
 * kernels, and a 16-byte load. C = A·B in FP32, row-major: A M×K, B K×N, C M×N, all on the
 * device. */
#pragma once
#include "lab.h"

typedef struct gemm_problem {
    const float *A, *B;
    float *C;
    int M, N, K;
} gemm_problem;

/* Seed 001's panel product, C (n×n) = A (n×W) · B (W×n): rungs 1-3 exist only for W = 32. */
enum { PANEL_W = 32 };

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

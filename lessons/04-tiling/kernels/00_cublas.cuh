/* Rung 0 of lesson 04's ladder (./demo 0): cuBLAS SGEMM in FP32, the yardstick every other
 * rung is read against, and, apart from the ladder, the same call on TF32 tensor cores. */
#pragma once
#include <cublas_v2.h>

#include "gemm.cuh"

/* Created by main with pedantic math: FP32 multiplies and adds, never TF32 tensor cores. */
static cublasHandle_t cublas;

/* Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: hand cuBLAS B first, with N as rows. */
static void gemm_v0(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, p->B, p->N,
                             p->A, p->K, &zero, p->C, p->N));
}

/* Not a rung of the ladder: cuBLAS with TF32 tensor cores (inputs rounded to 10 mantissa bits,
 * products accumulated in FP32). Faster, and less accurate: the table shows both, against
 * the FP32 product and the same tolerance every version of the ladder is checked with. */
static void gemm_tf32(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_TF32_TENSOR_OP_MATH));
    CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, p->B, p->N,
                             p->A, p->K, &zero, p->C, p->N));
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_PEDANTIC_MATH));
}

// Versions 0 and 1 of lesson 09's demo (./demo 0, ./demo 1): cuBLAS, the yardstick. cublasDgemm
// computes the whole AᵀA from the row-major A read as the column-major Aᵀ; cublasDsyrk computes
// one triangle, which a small kernel then mirrors onto the other, untimed, for the check.
// Included by demo.cu after the problem struct.
#pragma once

// ----- cuBLAS fills one triangle; this copies it onto the other (untimed, for the check).
// cuBLAS's column-major "upper" triangle (row <= col) is, read row-major, the lower one.
static __global__ void mirror_lower_to_upper(double *C, int N)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < N && col < N && col > row)
        C[(size_t)row * N + col] = C[(size_t)col * N + row];
}

static void run_dgemm_v0(void *arg)
{
    const problem *p = (const problem *)arg;
    const double one = 1.0, zero = 0.0;
    // Column-major cuBLAS reads the row-major M×N array as the N×M matrix Aᵀ (lda = N), without
    // a copy. Aᵀ · (Aᵀ)ᵀ = AᵀA: the first operand as it is (N), the second transposed (T).
    CUBLAS_CHECK(cublasDgemm(p->blas, CUBLAS_OP_N, CUBLAS_OP_T, p->N, p->N, p->M, &one, p->A, p->N, p->A,
                             p->N, &zero, p->C, p->N));
}

static void run_dsyrk_v1(void *arg)
{
    const problem *p = (const problem *)arg;
    const double one = 1.0, zero = 0.0;
    // C = X Xᵀ with X = the same column-major view Aᵀ (N×M, no transpose). cuBLAS writes only
    // its upper triangle; the other half of the array is left as it was.
    CUBLAS_CHECK(cublasDsyrk(p->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, p->N, p->M, &one, p->A, p->N,
                             &zero, p->C, p->N));
}

static void finish_dsyrk_v1(const problem *p)
{
    dim3 block(32, 8), grid((p->N + 31) / 32, (p->N + 7) / 8);
    mirror_lower_to_upper<<<grid, block>>>(p->C, p->N);
    CUDA_LAUNCH_CHECK();
}

// The CPU's matrix product, for references and tests. In its own object so that an exercise's
// binary, linked without it, holds no CPU computation of the answer.
#include "lab.h"

#include <stdlib.h>

void lab_gemm_ref_f32(const float *A, const float *B, float *C, size_t M, size_t N, size_t K)
{
    double *row = malloc(N * sizeof *row);
    if (!row)
        abort();
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++)
            row[j] = 0;
        for (size_t k = 0; k < K; k++) {
            double a = A[i * K + k];
            for (size_t j = 0; j < N; j++)
                row[j] += a * B[k * N + j];
        }
        for (size_t j = 0; j < N; j++)
            C[i * N + j] = (float)row[j];
    }
    free(row);
}

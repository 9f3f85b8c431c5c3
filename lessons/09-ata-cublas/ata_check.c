// The check of C = AᵀA. lab_check_gemm_f64 checks a product of two different matrices and
// would need an explicit copy of Aᵀ; this one reads the single copy of A, column by column
// through its rows, and adds what only AᵀA has: the result must be symmetric.
#include "ata_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "error: out of host memory (%zu bytes)\n", n * size);
        exit(LAB_EXIT_CUDA);
    }
    return p;
}

#ifndef LAB_EXERCISE_BUILD // an exercise's binary holds no CPU computation of the answer
void ata_reference(const double *A, double *C, size_t M, size_t N)
{
    // Rank-1 updates row by row of A: both operands stream through memory in order.
    memset(C, 0, N * N * sizeof *C);
    for (size_t k = 0; k < M; k++) {
        const double *a = A + k * N;
        for (size_t i = 0; i < N; i++) {
            double *c = C + i * N;
            const double aki = a[i];
            for (size_t j = 0; j < N; j++)
                c[j] += aki * a[j];
        }
    }
}
#endif

// Row i of AᵀA and its scale, exactly: k outer so that row k of A is read contiguously.
static void exact_row(const double *A, size_t M, size_t N, size_t i, double *val, double *scl)
{
    memset(val, 0, N * sizeof *val);
    memset(scl, 0, N * sizeof *scl);
    for (size_t k = 0; k < M; k++) {
        const double *a = A + k * N;
        const double aki = a[i];
        for (size_t j = 0; j < N; j++) {
            const double p = aki * a[j];
            val[j] += p;
            scl[j] += fabs(p);
        }
    }
}

static void check_row(const double *A, const double *C, size_t M, size_t N, size_t i,
                      double *val, double *scl, lab_tolerance tol, lab_compare_result *r)
{
    exact_row(A, M, N, i, val, scl);
    for (size_t j = 0; j < N; j++)
        lab_compare_one(r, i * N + j, val[j], C[i * N + j], scl[j], tol);
}

static void check_entry(const double *A, const double *C, size_t M, size_t N, size_t i, size_t j,
                        lab_tolerance tol, lab_compare_result *r)
{
    double acc = 0, scale = 0;
    for (size_t k = 0; k < M; k++) {
        const double p = A[k * N + i] * A[k * N + j];
        acc += p;
        scale += fabs(p);
    }
    lab_compare_one(r, i * N + j, acc, C[i * N + j], scale, tol);
}

// A NaN or Inf anywhere fails at once, with the exact value beside the first few of them:
// an unwritten element of the poisoned output reads as NaN.
static size_t scan_non_finite(const double *A, const double *C, size_t M, size_t N,
                              lab_compare_result *r)
{
    size_t found = 0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            if (isfinite(C[i * N + j]))
                continue;
            double expected = 0;
            if (found++ < LAB_MAX_SHOWN)
                for (size_t k = 0; k < M; k++)
                    expected += A[k * N + i] * A[k * N + j];
            lab_tolerance exact = {0, 0};
            lab_compare_one(r, i * N + j, expected, C[i * N + j], 0, exact);
        }
    return found;
}

// Freivalds' test: for random signs x, C x must equal Aᵀ(A x), row by row. A correct C has
// per-element errors e_ij below tol_ij <= atol + rtol sqrt(d_i d_j) (Cauchy-Schwarz, with
// d_i = sum_k A[k][i]^2), and sum_j e_ij x_j stays below 7 sqrt(sum_j tol_ij^2) except with
// probability under 1e-10 per row (Hoeffding). A wrong element e in row i shows as |e|
// beyond that bound whatever the signs, since no other error can cancel it in every round.
// Returns the number of failing rows; *first_row is the first of them.
static size_t freivalds(const double *A, const double *C, size_t M, size_t N, const double *d,
                        lab_tolerance tol, lab_rng *rng, size_t *first_row, double *got_out,
                        double *want_out)
{
    double *x = xcalloc(N, sizeof *x), *ax = xcalloc(M, sizeof *ax), *w = xcalloc(N, sizeof *w);
    double dsum = 0;
    for (size_t i = 0; i < N; i++)
        dsum += d[i];
    size_t failed = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < N; i++)
            x[i] = lab_rng_next(rng) & 1 ? 1.0 : -1.0;
        for (size_t k = 0; k < M; k++) {
            double acc = 0;
            for (size_t i = 0; i < N; i++)
                acc += A[k * N + i] * x[i];
            ax[k] = acc;
        }
        memset(w, 0, N * sizeof *w);
        for (size_t k = 0; k < M; k++)
            for (size_t i = 0; i < N; i++)
                w[i] += A[k * N + i] * ax[k];
        for (size_t i = 0; i < N; i++) {
            double cx = 0;
            for (size_t j = 0; j < N; j++)
                cx += C[i * N + j] * x[j];
            const double bound =
                7.0 * (tol.abs_tol * sqrt((double)N) + tol.rel_tol * sqrt(d[i] * dsum));
            if (!(fabs(cx - w[i]) <= bound) && failed++ == 0) {
                *first_row = i;
                *got_out = cx;
                *want_out = w[i];
            }
        }
    }
    free(x);
    free(ax);
    free(w);
    return failed;
}

// C[j][i] against C[i][j] for every i < j, in square blocks so that the column walk through
// the lower triangle stays in cache. The scale sqrt(d_i d_j) bounds sum_k |A[k][i] A[k][j]|.
static void check_symmetry(const double *C, size_t N, const double *d, lab_tolerance tol,
                           lab_compare_result *r)
{
    enum { B = 64 };
    for (size_t ib = 0; ib < N; ib += B)
        for (size_t jb = ib; jb < N; jb += B)
            for (size_t i = ib; i < ib + B && i < N; i++)
                for (size_t j = jb > i + 1 ? jb : i + 1; j < jb + B && j < N; j++)
                    lab_compare_one(r, j * N + i, C[i * N + j], C[j * N + i], sqrt(d[i] * d[j]), tol);
}

void ata_check(const double *A, const double *C, size_t M, size_t N, lab_tolerance tol,
               uint64_t seed, lab_compare_result *r)
{
    double *val = xcalloc(N, sizeof *val), *scl = xcalloc(N, sizeof *scl);
    lab_rng rng;
    lab_rng_seed(&rng, lab_check_seed(seed, "ata-check")); // salted: see lab_check_seed
    if (M * N * N <= ATA_EXACT_LIMIT) {
        for (size_t i = 0; i < N; i++)
            check_row(A, C, M, N, i, val, scl, tol, r);
    } else if (scan_non_finite(A, C, M, N, r) == 0) {
        double *d = xcalloc(N, sizeof *d);
        for (size_t k = 0; k < M; k++)
            for (size_t i = 0; i < N; i++)
                d[i] += A[k * N + i] * A[k * N + i];
        // The diagonal is exact and free here: d_i is both C[i][i] and its scale.
        for (size_t i = 0; i < N; i++)
            lab_compare_one(r, i * N + i, d[i], C[i * N + i], d[i], tol);
        // The first and last rows always: edge tiles are where kernels go wrong.
        for (size_t s = 0; s < 4; s++)
            check_row(A, C, M, N, s == 0 ? 0 : s == 1 ? N - 1 : lab_rng_below(&rng, N), val,
                      scl, tol, r);
        for (size_t s = 0; s < 1024; s++) {
            size_t i = lab_rng_below(&rng, N); // row first: the order of arguments is unspecified
            check_entry(A, C, M, N, i, lab_rng_below(&rng, N), tol, r);
        }
        check_symmetry(C, N, d, tol, r);
        size_t first = 0;
        double got = 0, want = 0;
        size_t failed = freivalds(A, C, M, N, d, tol, &rng, &first, &got, &want);
        if (failed)
            lab_compare_fail(r, "Freivalds' test failed on %zu of 3×%zu rows: row %zu of C·x is "
                                "%.9g, Aᵀ(A·x) gives %.9g",
                             failed, N, first, got, want);
        free(d);
    }
    free(val);
    free(scl);
}

// Tolerance comparison: counts, largest errors, the first mismatches — and the check of a
// matrix product that stays cheap when an exact CPU reference would not be.
#include "lab.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void lab_compare_init(lab_compare_result *r) { memset(r, 0, sizeof *r); }

static void record_mismatch(lab_compare_result *r, size_t index, double expected, double got)
{
    r->bad++;
    if (r->shown < LAB_MAX_SHOWN) {
        lab_mismatch *m = &r->first[r->shown++];
        m->index = index;
        m->expected = expected;
        m->got = got;
    }
}

int lab_compare_one(lab_compare_result *r, size_t index, double expected, double got,
                    double scale, lab_tolerance tol)
{
    r->checked++;
    if (!isfinite(expected) || !isfinite(got)) {
        // Equal non-finite values pass (an Inf the reference also has); anything else fails,
        // and a NaN is what the poisoned, never-written outputs hold.
        int same = (isnan(expected) && isnan(got)) || expected == got;
        if (!same)
            record_mismatch(r, index, expected, got);
        return same;
    }
    double err = fabs(got - expected);
    if (err > r->max_abs_err)
        r->max_abs_err = err;
    if (scale > 0 && err / scale > r->max_rel_err)
        r->max_rel_err = err / scale;
    if (err <= tol.abs_tol + tol.rel_tol * scale)
        return 1;
    record_mismatch(r, index, expected, got);
    return 0;
}

void lab_compare_f32(const float *expected, const float *got, size_t n, lab_tolerance tol,
                     lab_compare_result *r)
{
    for (size_t i = 0; i < n; i++)
        lab_compare_one(r, i, expected[i], got[i], fabs((double)expected[i]), tol);
}

void lab_compare_f64(const double *expected, const double *got, size_t n, lab_tolerance tol,
                     lab_compare_result *r)
{
    for (size_t i = 0; i < n; i++)
        lab_compare_one(r, i, expected[i], got[i], fabs(expected[i]), tol);
}

void lab_compare_i32(const int32_t *expected, const int32_t *got, size_t n, lab_compare_result *r)
{
    lab_tolerance exact = {0, 0};
    for (size_t i = 0; i < n; i++)
        lab_compare_one(r, i, expected[i], got[i], 0, exact);
}

void lab_compare_fail(lab_compare_result *r, const char *fmt, ...)
{
    size_t used = strlen(r->note);
    if (used && used + 2 < sizeof r->note) { // keep earlier notes: "a; b"
        strcpy(r->note + used, "; ");
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
    va_end(ap);
}

void lab_mismatch_format(const lab_mismatch *m, size_t cols, char *buf, size_t len)
{
    char where[64] = "";
    if (cols > 0)
        snprintf(where, sizeof where, " (row %zu, col %zu)", m->index / cols, m->index % cols);
    snprintf(buf, len, "[%zu]%s expected %.9g got %.9g", m->index, where, m->expected, m->got);
}

// ------------------------------------------------------------------ matrix products
// Both element types are checked by one double-precision implementation; float inputs are
// widened once, which costs O(MK + KN + MN) and keeps the inner loops free of conversions.

// Exact comparison of row i of C against sum_k A_ik B_kj, scale sum_k |A_ik B_kj|.
static void check_row(const double *A, const double *B, const double *C, size_t N, size_t K,
                      size_t i, double *ref, double *scl, lab_tolerance tol, lab_compare_result *r)
{
    for (size_t j = 0; j < N; j++)
        ref[j] = scl[j] = 0;
    for (size_t k = 0; k < K; k++) {
        double a = A[i * K + k];
        const double *b = B + k * N;
        for (size_t j = 0; j < N; j++) {
            ref[j] += a * b[j];
            scl[j] += fabs(a * b[j]);
        }
    }
    for (size_t j = 0; j < N; j++)
        if (isfinite(C[i * N + j])) // non-finite outputs were counted by the scan already
            lab_compare_one(r, i * N + j, ref[j], C[i * N + j], scl[j], tol);
}

static void check_entry(const double *A, const double *B, const double *C, size_t N, size_t K,
                        size_t i, size_t j, lab_tolerance tol, lab_compare_result *r)
{
    double acc = 0, scale = 0;
    for (size_t k = 0; k < K; k++) {
        double p = A[i * K + k] * B[k * N + j];
        acc += p;
        scale += fabs(p);
    }
    if (isfinite(C[i * N + j]))
        lab_compare_one(r, i * N + j, acc, C[i * N + j], scale, tol);
}

// Freivalds over every row: C x against A (B x) for random signs x. For a C within
// tolerance, |(C x - A B x)_i| <= 7 sqrt(sum_j tol_ij^2) except with probability below 1e-10
// (Hoeffding), and tol_ij <= atol + rtol |A_i|_2 |B_:j|_2 (Cauchy-Schwarz). Returns the number
// of rows over that bound; *first_row is the first of them.
static size_t freivalds(const double *A, const double *B, const double *C, size_t M, size_t N,
                        size_t K, lab_tolerance tol, lab_rng *rng, size_t *first_row)
{
    double *x = malloc(N * sizeof *x), *bx = malloc(K * sizeof *bx);
    if (!x || !bx)
        abort();
    double bf2 = 0;
    for (size_t t = 0; t < K * N; t++)
        bf2 += B[t] * B[t];
    size_t failed = 0;
    for (int round = 0; round < 2; round++) {
        for (size_t j = 0; j < N; j++)
            x[j] = lab_rng_next(rng) & 1 ? 1.0 : -1.0;
        for (size_t k = 0; k < K; k++) {
            double acc = 0;
            for (size_t j = 0; j < N; j++)
                acc += B[k * N + j] * x[j];
            bx[k] = acc;
        }
        for (size_t i = 0; i < M; i++) {
            double cx = 0, abx = 0, a2 = 0;
            for (size_t j = 0; j < N; j++)
                cx += C[i * N + j] * x[j];
            for (size_t k = 0; k < K; k++) {
                abx += A[i * K + k] * bx[k];
                a2 += A[i * K + k] * A[i * K + k];
            }
            double bound = 7.0 * (tol.abs_tol * sqrt((double)N) + tol.rel_tol * sqrt(a2 * bf2));
            if (isfinite(cx) && !(fabs(cx - abx) <= bound) && failed++ == 0)
                *first_row = i;
        }
    }
    free(x);
    free(bx);
    return failed;
}

static void check_gemm(const double *A, const double *B, const double *C, size_t M, size_t N,
                       size_t K, lab_tolerance tol, uint64_t seed, lab_compare_result *r)
{
    // Every element is looked at: an unwritten (poisoned) output is NaN. The expected value
    // is worked out only for the mismatches that will be shown.
    for (size_t i = 0; i < M * N; i++)
        if (!isfinite(C[i])) {
            double expected = NAN;
            if (r->shown < LAB_MAX_SHOWN) {
                expected = 0;
                for (size_t k = 0; k < K; k++)
                    expected += A[i / N * K + k] * B[k * N + i % N];
            }
            r->checked++;
            record_mismatch(r, i, expected, C[i]);
        }
    double *ref = malloc(N * sizeof *ref), *scl = malloc(N * sizeof *scl);
    if (!ref || !scl)
        abort();
    lab_rng rng;
    lab_rng_seed(&rng, lab_seed_derive(seed, "gemm-check"));
    if (M * N * K <= LAB_GEMM_EXACT_LIMIT) {
        for (size_t i = 0; i < M; i++)
            check_row(A, B, C, N, K, i, ref, scl, tol, r);
    } else {
        // Sampled exact rows and columns (the first and last always: edge tiles go wrong
        // there), random entries, then Freivalds for everything else.
        for (size_t s = 0; s < 10; s++) {
            size_t i = s == 0 ? 0 : s == 1 ? M - 1 : lab_rng_below(&rng, M);
            size_t j = s == 0 ? 0 : s == 1 ? N - 1 : lab_rng_below(&rng, N);
            check_row(A, B, C, N, K, i, ref, scl, tol, r);
            for (size_t ii = 0; ii < M; ii++)
                check_entry(A, B, C, N, K, ii, j, tol, r);
        }
        for (size_t s = 0; s < 4096; s++)
            check_entry(A, B, C, N, K, lab_rng_below(&rng, M), lab_rng_below(&rng, N), tol, r);
        size_t first_row = 0, failed = freivalds(A, B, C, M, N, K, tol, &rng, &first_row);
        if (failed)
            lab_compare_fail(r, "Freivalds' check failed on %zu row(s), first row %zu", failed,
                             first_row);
    }
    free(ref);
    free(scl);
}

static double *widen(const float *x, size_t n)
{
    double *d = malloc(n * sizeof *d);
    if (!d)
        abort();
    for (size_t i = 0; i < n; i++)
        d[i] = x[i];
    return d;
}

void lab_check_gemm_f32(const float *A, const float *B, const float *C, size_t M, size_t N,
                        size_t K, lab_tolerance tol, uint64_t seed, lab_compare_result *r)
{
    double *a = widen(A, M * K), *b = widen(B, K * N), *c = widen(C, M * N);
    check_gemm(a, b, c, M, N, K, tol, seed, r);
    free(a);
    free(b);
    free(c);
}

void lab_check_gemm_f64(const double *A, const double *B, const double *C, size_t M, size_t N,
                        size_t K, lab_tolerance tol, uint64_t seed, lab_compare_result *r)
{
    check_gemm(A, B, C, M, N, K, tol, seed, r);
}

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

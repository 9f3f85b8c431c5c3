// Tolerance comparison: counts, largest errors, the first mismatches — and the check of a
// matrix product that stays cheap when an exact CPU reference would not be.
#include "lab.h"
#include "parallel.h"

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
    // Equal non-finite values pass (an Inf the reference also has); anything else fails, and
    // a NaN is what the poisoned, never-written outputs hold. Only finite pairs have an error.
    if (isfinite(expected) && isfinite(got)) {
        double err = fabs(got - expected);
        if (err > r->max_abs_err)
            r->max_abs_err = err;
        if (scale > 0 && err / scale > r->max_rel_err)
            r->max_rel_err = err / scale;
    }
    if (!lab_element_fails(expected, got, scale, tol))
        return 1;
    record_mismatch(r, index, expected, got);
    return 0;
}

void lab_compare_add(lab_compare_result *r, const lab_compare_summary *s)
{
    r->checked += s->checked;
    r->bad += s->bad;
    r->max_abs_err = fmax(r->max_abs_err, s->max_abs_err);
    r->max_rel_err = fmax(r->max_rel_err, s->max_rel_err);
    for (size_t i = 0; i < s->shown && i < LAB_MAX_SHOWN && r->shown < LAB_MAX_SHOWN; i++)
        r->first[r->shown++] = s->first[i];
}

void lab_compare_set_check(lab_compare_result *r, int sampled, const char *fmt, ...)
{
    // The weakest check of a case is what the report says: a sampled repetition is not
    // hidden behind a full one.
    if (!sampled && r->check[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->check, sizeof r->check, fmt, ap);
    va_end(ap);
}

// The device of a verifier's full checks; -1: none asked for (lab.h, "full checks").
static int full_check_device = -1;

void lab_full_check_request(int ordinal) { full_check_device = ordinal < 0 ? 0 : ordinal; }

int lab_full_check_ordinal(void) { return full_check_device; }

// ------------------------------------------------------------------ on every core
// Each chunk of [0, n) gets a result of its own, merged in chunk order: the counts and largest
// errors are the serial loop's, and the first mismatches stay the first in index order.

static void merge(lab_compare_result *dst, const lab_compare_result *src)
{
    dst->checked += src->checked;
    dst->bad += src->bad;
    dst->max_abs_err = fmax(dst->max_abs_err, src->max_abs_err);
    dst->max_rel_err = fmax(dst->max_rel_err, src->max_rel_err);
    for (size_t i = 0; i < src->shown && dst->shown < LAB_MAX_SHOWN; i++)
        dst->first[dst->shown++] = src->first[i];
    if (src->note[0])
        lab_compare_fail(dst, "%s", src->note);
}

typedef struct chunk_job {
    lab_compare_chunk_fn fn;
    void *arg;
    lab_compare_result *res; // one per chunk
} chunk_job;

static void compare_chunk(size_t index, size_t begin, size_t end, void *arg)
{
    const chunk_job *j = (const chunk_job *)arg;
    lab_compare_init(&j->res[index]);
    j->fn(begin, end, j->arg, &j->res[index]);
}

void lab_compare_chunks(size_t n, size_t chunk, lab_compare_chunk_fn fn, void *arg,
                        lab_compare_result *r)
{
    if (chunk == 0)
        chunk = LAB_COMPARE_CHUNK;
    const size_t chunks = (n + chunk - 1) / chunk;
    if (chunks <= 1) { // small: the calling thread alone, into r directly
        if (n)
            fn(0, n, arg, r);
        return;
    }
    chunk_job j = {fn, arg, (lab_compare_result *)malloc(chunks * sizeof(lab_compare_result))};
    if (!j.res)
        abort();
    lab_parallel_chunks(n, chunk, compare_chunk, &j);
    for (size_t i = 0; i < chunks; i++)
        merge(r, &j.res[i]);
    free(j.res);
}

typedef struct arrays {
    const void *expected, *got;
    lab_tolerance tol;
} arrays;

static void f32_chunk(size_t begin, size_t end, void *arg, lab_compare_result *r)
{
    const arrays *a = (const arrays *)arg;
    const float *e = (const float *)a->expected, *g = (const float *)a->got;
    for (size_t i = begin; i < end; i++)
        lab_compare_one(r, i, e[i], g[i], fabs((double)e[i]), a->tol);
}

static void f64_chunk(size_t begin, size_t end, void *arg, lab_compare_result *r)
{
    const arrays *a = (const arrays *)arg;
    const double *e = (const double *)a->expected, *g = (const double *)a->got;
    for (size_t i = begin; i < end; i++)
        lab_compare_one(r, i, e[i], g[i], fabs(e[i]), a->tol);
}

static void i32_chunk(size_t begin, size_t end, void *arg, lab_compare_result *r)
{
    const arrays *a = (const arrays *)arg;
    const int32_t *e = (const int32_t *)a->expected, *g = (const int32_t *)a->got;
    for (size_t i = begin; i < end; i++)
        lab_compare_one(r, i, e[i], g[i], 0, a->tol);
}

typedef struct each_job {
    const float *got;
    lab_expected_fn expected;
    const void *arg;
    lab_tolerance tol;
} each_job;

static void each_chunk(size_t begin, size_t end, void *arg, lab_compare_result *r)
{
    const each_job *j = (const each_job *)arg;
    for (size_t i = begin; i < end; i++) {
        double scale = 0;
        const double want = j->expected(i, j->arg, &scale);
        lab_compare_one(r, i, want, j->got[i], scale, j->tol);
    }
}

void lab_compare_f32_each(const float *got, size_t n, lab_expected_fn expected, const void *arg,
                          lab_tolerance tol, lab_compare_result *r)
{
    each_job j = {got, expected, arg, tol};
    lab_compare_chunks(n, 0, each_chunk, &j, r);
}

void lab_compare_f32(const float *expected, const float *got, size_t n, lab_tolerance tol,
                     lab_compare_result *r)
{
    arrays a = {expected, got, tol};
    lab_compare_chunks(n, 0, f32_chunk, &a, r);
}

void lab_compare_f64(const double *expected, const double *got, size_t n, lab_tolerance tol,
                     lab_compare_result *r)
{
    arrays a = {expected, got, tol};
    lab_compare_chunks(n, 0, f64_chunk, &a, r);
}

void lab_compare_i32(const int32_t *expected, const int32_t *got, size_t n, lab_compare_result *r)
{
    arrays a = {expected, got, {0, 0}};
    lab_compare_chunks(n, 0, i32_chunk, &a, r);
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

// C_ij against row i of A times column j of B, given as bcol (K contiguous values).
static void check_entry(const double *A, const double *bcol, const double *C, size_t N, size_t K,
                        size_t i, size_t j, lab_tolerance tol, lab_compare_result *r)
{
    double acc = 0, scale = 0;
    const double *a = A + i * K;
    for (size_t k = 0; k < K; k++) {
        double p = a[k] * bcol[k];
        acc += p;
        scale += fabs(p);
    }
    if (isfinite(C[i * N + j]))
        lab_compare_one(r, i * N + j, acc, C[i * N + j], scale, tol);
}

// Freivalds over every row: C x against A (B x) for random signs x. For a C within
// tolerance, |(C x - A B x)_i| <= 7 sqrt(sum_j tol_ij^2) except with probability below 1e-10
// (Hoeffding), and tol_ij <= atol + rtol |A_i|_2 |B_:j|_2 (Cauchy-Schwarz).
typedef struct freivalds_job {
    const double *A, *C, *x, *bx;
    size_t N, K;
    lab_tolerance tol;
    double bf2;          // |B|_F^2
    unsigned char *bad;  // per row
} freivalds_job;

static void freivalds_row(size_t i, void *arg)
{
    const freivalds_job *f = (const freivalds_job *)arg;
    double cx = 0, abx = 0, a2 = 0;
    for (size_t j = 0; j < f->N; j++)
        cx += f->C[i * f->N + j] * f->x[j];
    for (size_t k = 0; k < f->K; k++) {
        abx += f->A[i * f->K + k] * f->bx[k];
        a2 += f->A[i * f->K + k] * f->A[i * f->K + k];
    }
    double bound = 7.0 * (f->tol.abs_tol * sqrt((double)f->N) + f->tol.rel_tol * sqrt(a2 * f->bf2));
    // A row holding NaN was counted by the scan already.
    f->bad[i] |= isfinite(cx) && !(fabs(cx - abx) <= bound);
}

// Returns the number of rows over the bound; *first_row is the first of them.
static size_t freivalds(const double *A, const double *B, const double *C, size_t M, size_t N,
                        size_t K, lab_tolerance tol, lab_rng *rng, size_t *first_row)
{
    double *x = malloc(N * sizeof *x), *bx = malloc(K * sizeof *bx);
    unsigned char *bad = calloc(M, 1);
    if (!x || !bx || !bad)
        abort();
    freivalds_job f = {A, C, x, bx, N, K, tol, 0, bad};
    for (size_t t = 0; t < K * N; t++)
        f.bf2 += B[t] * B[t];
    for (int round = 0; round < 2; round++) {
        for (size_t j = 0; j < N; j++)
            x[j] = lab_rng_next(rng) & 1 ? 1.0 : -1.0;
        for (size_t k = 0; k < K; k++) {
            double acc = 0;
            for (size_t j = 0; j < N; j++)
                acc += B[k * N + j] * x[j];
            bx[k] = acc;
        }
        lab_parallel_for(M, freivalds_row, &f);
    }
    size_t failed = 0;
    for (size_t i = M; i-- > 0;)
        if (bad[i]) {
            failed++;
            *first_row = i;
        }
    free(x);
    free(bx);
    free(bad);
    return failed;
}

// Whole rows and whole columns compared exactly, one item each, on every core; each item
// has its own result, merged in item order so that "first mismatches" stay the first.
typedef struct exact_job {
    const double *A, *B, *Bt, *C; // Bt: B transposed (N x K), for the columns
    size_t M, N, K;
    lab_tolerance tol;
    const size_t *rows, *cols;
    size_t n_rows, n_cols;
    lab_compare_result *res; // n_rows + n_cols
} exact_job;

static void exact_item(size_t item, void *arg)
{
    const exact_job *e = (const exact_job *)arg;
    lab_compare_result *r = &e->res[item];
    lab_compare_init(r);
    if (item < e->n_rows) {
        double *ref = malloc(e->N * sizeof *ref), *scl = malloc(e->N * sizeof *scl);
        if (!ref || !scl)
            abort();
        check_row(e->A, e->B, e->C, e->N, e->K, e->rows[item], ref, scl, e->tol, r);
        free(ref);
        free(scl);
    } else {
        const size_t j = e->cols[item - e->n_rows];
        for (size_t i = 0; i < e->M; i++)
            check_entry(e->A, e->Bt + j * e->K, e->C, e->N, e->K, i, j, e->tol, r);
    }
}

static void check_exact(exact_job *e, lab_compare_result *r)
{
    size_t items = e->n_rows + e->n_cols;
    e->res = malloc(items * sizeof *e->res);
    if (!e->res)
        abort();
    lab_parallel_for(items, exact_item, e);
    for (size_t i = 0; i < items; i++)
        merge(r, &e->res[i]);
    free(e->res);
}

typedef struct transpose_job {
    const double *B;
    double *Bt;
    size_t K, N;
} transpose_job;

static void transpose_rows(size_t index, size_t begin, size_t end, void *arg)
{
    (void)index;
    const transpose_job *t = (const transpose_job *)arg;
    for (size_t k = begin; k < end; k++)
        for (size_t j = 0; j < t->N; j++)
            t->Bt[j * t->K + k] = t->B[k * t->N + j];
}

// B (K x N) transposed on every core, a band of B's rows per item.
static double *transposed(const double *B, size_t K, size_t N)
{
    transpose_job t = {B, malloc(K * N * sizeof(double)), K, N};
    if (!t.Bt)
        abort();
    lab_parallel_chunks(K, 16, transpose_rows, &t);
    return t.Bt;
}

// The random entries, drawn in order on the calling thread and compared on every core.
enum { GEMM_ENTRIES = 4096 };
typedef struct entries_job {
    const exact_job *e;
    size_t at[GEMM_ENTRIES][2]; // row, column
} entries_job;

static void entries_chunk(size_t begin, size_t end, void *arg, lab_compare_result *r)
{
    const entries_job *en = (const entries_job *)arg;
    const exact_job *e = en->e;
    for (size_t s = begin; s < end; s++) {
        const size_t i = en->at[s][0], j = en->at[s][1];
        check_entry(e->A, e->Bt + j * e->K, e->C, e->N, e->K, i, j, e->tol, r);
    }
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
    lab_rng rng;
    lab_rng_seed(&rng, lab_check_seed(seed, "gemm-check")); // salted: see lab_check_seed
    const int sampled = M * N * K > LAB_GEMM_EXACT_LIMIT;
    exact_job e = {A, B, NULL, C, M, N, K, tol, NULL, NULL, 0, 0, NULL};
    size_t *rows = malloc((M > 10 ? M : 10) * sizeof *rows), cols[10];
    if (!rows)
        abort();
    if (!sampled) {
        for (size_t i = 0; i < M; i++)
            rows[i] = i;
        e.n_rows = M;
    } else {
        // Sampled exact rows and columns (the first and last always: edge tiles go wrong
        // there), random entries, then Freivalds for everything else. The columns and the
        // entries read B by column: from a transposed copy, one contiguous row each.
        for (size_t s = 0; s < 10; s++) {
            rows[s] = s == 0 ? 0 : s == 1 ? M - 1 : lab_rng_below(&rng, M);
            cols[s] = s == 0 ? 0 : s == 1 ? N - 1 : lab_rng_below(&rng, N);
        }
        e.n_rows = e.n_cols = 10;
        e.Bt = transposed(B, K, N);
    }
    e.rows = rows;
    e.cols = cols;
    check_exact(&e, r);
    free(rows);
    if (sampled) {
        entries_job en = {&e, {{0}}};
        for (size_t s = 0; s < GEMM_ENTRIES; s++) {
            en.at[s][0] = lab_rng_below(&rng, M); // row first: the order of arguments is unspecified
            en.at[s][1] = lab_rng_below(&rng, N);
        }
        lab_compare_chunks(GEMM_ENTRIES, 64, entries_chunk, &en, r);
        free((double *)e.Bt);
        size_t first_row = 0, failed = freivalds(A, B, C, M, N, K, tol, &rng, &first_row);
        if (failed)
            lab_compare_fail(r, "Freivalds' check failed on %zu row(s), first row %zu", failed,
                             first_row);
    }
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

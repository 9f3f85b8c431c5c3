// The check of C = AᵀA. lab_check_gemm_f64 checks a product of two different matrices and
// would need an explicit copy of Aᵀ; this one reads the single copy of A, column by column
// through its rows, and adds what only AᵀA has: the result must be symmetric. Above the
// exact limit, what depends on A alone is worked out once (ata_check_prepare) and then compared
// with each C (ata_check_apply); both read the matrices in passes on every core, whose items
// keep the serial loop's order of sums and of comparisons, so no result depends on threads.
#include "ata_check.h"
#include "parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

enum {
    SAMPLED_ROWS = 4, // exact whole rows
    ENTRIES = 1024,   // exact single entries
    ROUNDS = 3,       // Freivalds' sign vectors
    COLS = 256,       // columns per item of a pass down A's columns: 2 KiB of each row
    ROWS = 16,        // rows per item of a pass along the rows of A or C
    BAND = 64,        // rows per item of the symmetry check, and its square blocks
};

struct ata_check_plan {
    size_t M, N;
    int exact;                        // M·N·N <= ATA_EXACT_LIMIT: every row exactly, nothing kept
    size_t rows[SAMPLED_ROWS];        // the rows checked whole: the first, the last, two random
    size_t entry[ENTRIES][2];         // row, column
    double entry_val[ENTRIES], entry_scl[ENTRIES];
    double *d;                        // d_i = sum_k A[k][i]^2: C[i][i] exactly, and the scales
    double *val, *scl;                // SAMPLED_ROWS rows of AᵀA and their scales, N each
    double *x, *w;                    // ROUNDS sign vectors and Aᵀ(A x) of each, N each
    double dsum;                      // sum_i d_i
};

// ----------------------------------------------------------------------- from A alone

typedef struct prepare_job {
    ata_check_plan *p;
    const double *A;
} prepare_job;

// Columns [j0, j1) of d and of the sampled rows, k outer as in exact_row.
static void column_sums(size_t index, size_t j0, size_t j1, void *arg)
{
    (void)index;
    const prepare_job *job = (const prepare_job *)arg;
    const ata_check_plan *p = job->p;
    const size_t N = p->N;
    double *restrict d = p->d, *restrict val = p->val, *restrict scl = p->scl;
    for (size_t k = 0; k < p->M; k++) {
        const double *restrict a = job->A + k * N;
        double aki[SAMPLED_ROWS];
        for (int t = 0; t < SAMPLED_ROWS; t++)
            aki[t] = a[p->rows[t]];
        for (size_t j = j0; j < j1; j++)
            d[j] += a[j] * a[j];
        for (int t = 0; t < SAMPLED_ROWS; t++)
            for (size_t j = j0; j < j1; j++) {
                const double q = aki[t] * a[j];
                val[t * N + j] += q;
                scl[t * N + j] += fabs(q);
            }
    }
}

typedef struct freivalds_job {
    const ata_check_plan *p;
    const double *A;
    double *ax; // M x ROUNDS
} freivalds_job;

// Rows [k0, k1) of A x for every round.
static void a_times_x(size_t index, size_t k0, size_t k1, void *arg)
{
    (void)index;
    const freivalds_job *f = (const freivalds_job *)arg;
    const size_t N = f->p->N;
    for (size_t k = k0; k < k1; k++)
        for (int t = 0; t < ROUNDS; t++) {
            const double *x = f->p->x + t * N, *a = f->A + k * N;
            double acc = 0;
            for (size_t i = 0; i < N; i++)
                acc += a[i] * x[i];
            f->ax[k * ROUNDS + t] = acc;
        }
}

// Columns [i0, i1) of Aᵀ(A x) for every round, k outer.
static void at_times_ax(size_t index, size_t i0, size_t i1, void *arg)
{
    (void)index;
    const freivalds_job *f = (const freivalds_job *)arg;
    const size_t N = f->p->N;
    for (size_t k = 0; k < f->p->M; k++) {
        const double *restrict a = f->A + k * N;
        for (int t = 0; t < ROUNDS; t++) {
            double *restrict w = f->p->w + t * N;
            const double axk = f->ax[k * ROUNDS + t];
            for (size_t i = i0; i < i1; i++)
                w[i] += a[i] * axk;
        }
    }
}

enum { ENTRY_ITEM = 64 };

// Entries [s0, s1), k outer: each row of A serves every entry of the item before the next one
// is read (k inner would walk A's columns a page per step); the sums still run k ascending.
static void exact_entries(size_t index, size_t s0, size_t s1, void *arg)
{
    (void)index;
    const prepare_job *job = (const prepare_job *)arg;
    ata_check_plan *p = job->p;
    double acc[ENTRY_ITEM] = {0}, scale[ENTRY_ITEM] = {0};
    for (size_t k = 0; k < p->M; k++) {
        const double *a = job->A + k * p->N;
        for (size_t s = s0; s < s1; s++) {
            const double q = a[p->entry[s][0]] * a[p->entry[s][1]];
            acc[s - s0] += q;
            scale[s - s0] += fabs(q);
        }
    }
    for (size_t s = s0; s < s1; s++) {
        p->entry_val[s] = acc[s - s0];
        p->entry_scl[s] = scale[s - s0];
    }
}

ata_check_plan *ata_check_prepare(const double *A, size_t M, size_t N, uint64_t seed)
{
    ata_check_plan *p = lab_xcalloc(1, sizeof *p);
    p->M = M;
    p->N = N;
    p->exact = M * N * N <= ATA_EXACT_LIMIT;
    if (p->exact)
        return p;
    lab_rng rng;
    lab_rng_seed(&rng, lab_check_seed(seed, "ata-check")); // salted: see lab_check_seed
    // The first and last rows always: edge tiles are where kernels go wrong.
    for (size_t s = 0; s < SAMPLED_ROWS; s++)
        p->rows[s] = s == 0 ? 0 : s == 1 ? N - 1 : lab_rng_below(&rng, N);
    for (size_t s = 0; s < ENTRIES; s++) {
        p->entry[s][0] = lab_rng_below(&rng, N); // row first: the order of arguments is unspecified
        p->entry[s][1] = lab_rng_below(&rng, N);
    }
    p->x = lab_xcalloc(ROUNDS * N, sizeof *p->x);
    for (size_t i = 0; i < ROUNDS * N; i++)
        p->x[i] = lab_rng_next(&rng) & 1 ? 1.0 : -1.0;
    p->d = lab_xcalloc(N, sizeof *p->d);
    p->val = lab_xcalloc(SAMPLED_ROWS * N, sizeof *p->val);
    p->scl = lab_xcalloc(SAMPLED_ROWS * N, sizeof *p->scl);
    p->w = lab_xcalloc(ROUNDS * N, sizeof *p->w);
    prepare_job job = {p, A};
    lab_parallel_chunks(N, COLS, column_sums, &job);
    lab_parallel_chunks(ENTRIES, ENTRY_ITEM, exact_entries, &job);
    freivalds_job f = {p, A, lab_xcalloc(ROUNDS * M, sizeof(double))};
    lab_parallel_chunks(M, ROWS, a_times_x, &f);
    lab_parallel_chunks(N, COLS, at_times_ax, &f);
    free(f.ax);
    for (size_t i = 0; i < N; i++)
        p->dsum += p->d[i];
    return p;
}

void ata_check_plan_free(ata_check_plan *p)
{
    if (!p)
        return;
    free(p->d);
    free(p->val);
    free(p->scl);
    free(p->x);
    free(p->w);
    free(p);
}

// ----------------------------------------------------------------------- against one C

// Rows [i0, i1) of C: every element must be finite, and C x for every round, j ascending.
// A NaN or Inf fails at once, with the exact value beside the first few of this item's (the
// merge keeps the first of all): an unwritten element of the poisoned output reads as NaN.
typedef struct scan_job {
    const ata_check_plan *p;
    const double *A, *C;
    double *cx;           // ROUNDS x N
    size_t *non_finite;   // per row
} scan_job;

static void scan_rows(size_t i0, size_t i1, void *arg, lab_compare_result *part)
{
    const scan_job *s = (const scan_job *)arg;
    const size_t M = s->p->M, N = s->p->N;
    const double *x = s->p->x;
    for (size_t i = i0; i < i1; i++) {
        const double *c = s->C + i * N;
        double cx[ROUNDS] = {0};
        for (size_t j = 0; j < N; j++) {
            for (int t = 0; t < ROUNDS; t++)
                cx[t] += c[j] * x[t * N + j];
            if (isfinite(c[j]))
                continue;
            s->non_finite[i]++;
            double expected = 0;
            if (part->shown < LAB_MAX_SHOWN)
                for (size_t k = 0; k < M; k++)
                    expected += s->A[k * N + i] * s->A[k * N + j];
            const lab_tolerance exact = {0, 0};
            lab_compare_one(part, i * N + j, expected, c[j], 0, exact);
        }
        for (int t = 0; t < ROUNDS; t++)
            s->cx[t * N + i] = cx[t];
    }
}

// C[j][i] against C[i][j] for every i < j, in square blocks so that the column walk through
// the lower triangle stays in cache; one band of BAND rows per item. The scale sqrt(d_i d_j)
// bounds sum_k |A[k][i] A[k][j]|.
typedef struct symmetry_job {
    const ata_check_plan *p;
    const double *C;
    lab_tolerance tol;
} symmetry_job;

static void symmetry_bands(size_t b0, size_t b1, void *arg, lab_compare_result *part)
{
    const symmetry_job *s = (const symmetry_job *)arg;
    const size_t N = s->p->N;
    const double *C = s->C, *d = s->p->d;
    for (size_t ib = b0 * BAND; ib < b1 * BAND && ib < N; ib += BAND)
        for (size_t jb = ib; jb < N; jb += BAND)
            for (size_t i = ib; i < ib + BAND && i < N; i++)
                for (size_t j = jb > i + 1 ? jb : i + 1; j < jb + BAND && j < N; j++)
                    lab_compare_one(part, j * N + i, C[i * N + j], C[j * N + i], sqrt(d[i] * d[j]),
                                    s->tol);
}

// Freivalds' test: for random signs x, C x must equal Aᵀ(A x), row by row. A correct C has
// per-element errors e_ij below tol_ij <= atol + rtol sqrt(d_i d_j) (Cauchy-Schwarz, with
// d_i = sum_k A[k][i]^2), and sum_j e_ij x_j stays below 7 sqrt(sum_j tol_ij^2) except with
// probability under 1e-10 per row (Hoeffding). A wrong element e in row i shows as |e|
// beyond that bound whatever the signs, since no other error can cancel it in every round.
static void freivalds(const ata_check_plan *p, const double *cx, lab_tolerance tol,
                      lab_compare_result *r)
{
    const size_t N = p->N;
    size_t failed = 0, first = 0;
    for (int t = 0; t < ROUNDS; t++)
        for (size_t i = 0; i < N; i++) {
            const double bound =
                7.0 * (tol.abs_tol * sqrt((double)N) + tol.rel_tol * sqrt(p->d[i] * p->dsum));
            if (!(fabs(cx[t * N + i] - p->w[t * N + i]) <= bound) && failed++ == 0)
                first = (size_t)t * N + i;
        }
    if (failed)
        lab_compare_fail(r, "Freivalds' test failed on %zu of 3×%zu rows: row %zu of C·x is "
                            "%.9g, Aᵀ(A·x) gives %.9g",
                         failed, N, first % N, cx[first], p->w[first]);
}

void ata_check_apply(const ata_check_plan *p, const double *A, const double *C, lab_tolerance tol,
                     lab_compare_result *r)
{
    const size_t M = p->M, N = p->N;
    if (p->exact) {
        double *val = lab_xcalloc(N, sizeof *val), *scl = lab_xcalloc(N, sizeof *scl);
        for (size_t i = 0; i < N; i++) {
            exact_row(A, M, N, i, val, scl);
            for (size_t j = 0; j < N; j++)
                lab_compare_one(r, i * N + j, val[j], C[i * N + j], scl[j], tol);
        }
        free(val);
        free(scl);
        return;
    }
    scan_job s = {p, A, C, lab_xcalloc(ROUNDS * N, sizeof(double)), lab_xcalloc(N, sizeof(size_t))};
    lab_compare_chunks(N, ROWS, scan_rows, &s, r);
    size_t found = 0;
    for (size_t i = 0; i < N; i++)
        found += s.non_finite[i];
    if (found == 0) {
        // The diagonal is exact and free here: d_i is both C[i][i] and its scale.
        for (size_t i = 0; i < N; i++)
            lab_compare_one(r, i * N + i, p->d[i], C[i * N + i], p->d[i], tol);
        for (size_t t = 0; t < SAMPLED_ROWS; t++)
            for (size_t j = 0; j < N; j++)
                lab_compare_one(r, p->rows[t] * N + j, p->val[t * N + j], C[p->rows[t] * N + j],
                                p->scl[t * N + j], tol);
        for (size_t e = 0; e < ENTRIES; e++) {
            const size_t i = p->entry[e][0], j = p->entry[e][1];
            lab_compare_one(r, i * N + j, p->entry_val[e], C[i * N + j], p->entry_scl[e], tol);
        }
        symmetry_job y = {p, C, tol};
        lab_compare_chunks((N + BAND - 1) / BAND, 1, symmetry_bands, &y, r);
        freivalds(p, s.cx, tol, r);
    }
    free(s.cx);
    free(s.non_finite);
}

void ata_check(const double *A, const double *C, size_t M, size_t N, lab_tolerance tol,
               uint64_t seed, lab_compare_result *r)
{
    ata_check_plan *p = ata_check_prepare(A, M, N, seed);
    ata_check_apply(p, A, C, tol, r);
    ata_check_plan_free(p);
}

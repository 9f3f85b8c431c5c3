// The sampled check of a large product against code that knows the input seed. The exercise
// gets the same --seed as the verifier; were the sample a function of that seed alone, the
// exercise could write a C that is exact exactly where the check looks, matches both Freivalds
// products, and is wrong everywhere else, in O(n²) work. The forge below is such a C: it must
// pass an unsalted check (so the forge is real) and fail once the salt is fresh.
#include "cmocka_all.h"
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SAMPLED = 10, ENTRIES = 4096 };

// 2048·2048·520 = 2.18e9 multiply-adds: just above LAB_GEMM_EXACT_LIMIT, so the check samples.
static const size_t M = 2048, N = 2048, K = 520;
static const uint64_t SEED = 7;
static const lab_tolerance TOL = {0, 1e-10};

typedef struct gemm_sample {
    size_t rows[SAMPLED], cols[SAMPLED];
    size_t entry[ENTRIES][2];
    double *x[2]; // the two Freivalds vectors, N signs each
} gemm_sample;

// Everything the forger knows about the check, in one place: what common/compare.c
// check_gemm draws from lab_seed_derive(seed, "gemm-check") when the salt is 0, in its order.
//  1. 10 exact rows and 10 exact columns, interleaved row, column: slots 0 and 1 are row 0 /
//     row M-1 and column 0 / column N-1 and draw nothing; slots 2..9 draw lab_rng_below(M)
//     then lab_rng_below(N).
//  2. 4096 exact entries, each lab_rng_below(M) and lab_rng_below(N). Which of the two is the
//     row was once left to the compiler (both were arguments of one call); with M = N the
//     forge makes both (a, b) and (b, a) exact, so it fits either order.
//  3. Two Freivalds rounds of N signs each: bit 0 of lab_rng_next, 1 -> +1, 0 -> -1.
static void draw_gemm_sample(uint64_t seed, gemm_sample *s)
{
    lab_rng rng;
    lab_rng_seed(&rng, lab_seed_derive(seed, "gemm-check"));
    for (size_t t = 0; t < SAMPLED; t++) {
        s->rows[t] = t == 0 ? 0 : t == 1 ? M - 1 : lab_rng_below(&rng, M);
        s->cols[t] = t == 0 ? 0 : t == 1 ? N - 1 : lab_rng_below(&rng, N);
    }
    for (size_t t = 0; t < ENTRIES; t++) {
        s->entry[t][0] = lab_rng_below(&rng, M);
        s->entry[t][1] = lab_rng_below(&rng, N);
    }
    for (int round = 0; round < 2; round++) {
        s->x[round] = lab_xmalloc(N * sizeof(double));
        for (size_t j = 0; j < N; j++)
            s->x[round][j] = lab_rng_next(&rng) & 1 ? 1.0 : -1.0;
    }
}

typedef struct problem {
    double *A, *B, *C;
    unsigned char *exact; // M×N: where the forge holds the true value
} problem;

static double exact_entry(const problem *p, size_t i, size_t j)
{
    double acc = 0;
    for (size_t k = 0; k < K; k++)
        acc += p->A[i * K + k] * p->B[k * N + j];
    return acc;
}

// Where the check looks, marked in p->exact.
static void mark_sample(problem *p, const gemm_sample *s)
{
    for (size_t t = 0; t < SAMPLED; t++)
        for (size_t u = 0; u < N; u++) {
            p->exact[s->rows[t] * N + u] = 1;
            p->exact[u * N + s->cols[t]] = 1; // M = N
        }
    for (size_t t = 0; t < ENTRIES; t++) {
        p->exact[s->entry[t][0] * N + s->entry[t][1]] = 1;
        p->exact[s->entry[t][1] * N + s->entry[t][0]] = 1;
    }
}

// (A (B x))_i for every row.
static double *a_b_x(const problem *p, const double *x)
{
    double *bx = lab_xcalloc(K, sizeof *bx), *abx = lab_xcalloc(M, sizeof *abx);
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++)
            bx[k] += p->B[k * N + j] * x[j];
    for (size_t i = 0; i < M; i++)
        for (size_t k = 0; k < K; k++)
            abx[i] += p->A[i * K + k] * bx[k];
    free(bx);
    return abx;
}

// Row i outside the sampled rows: two free elements, one where the signs of x1 and x2 agree
// and one where they differ, absorb both Freivalds residuals (a 2×2 system of determinant ±2).
static void fix_row(problem *p, size_t i, double *const x[2], const double *abx1, const double *abx2)
{
    size_t same = N, differ = N;
    for (size_t j = 0; j < N && (same == N || differ == N); j++)
        if (!p->exact[i * N + j]) {
            if (x[0][j] == x[1][j] && same == N)
                same = j;
            else if (x[0][j] != x[1][j] && differ == N)
                differ = j;
        }
    assert_true(same < N && differ < N);
    double r1 = abx1[i], r2 = abx2[i];
    for (size_t j = 0; j < N; j++) {
        r1 -= p->C[i * N + j] * x[0][j];
        r2 -= p->C[i * N + j] * x[1][j];
    }
    p->C[i * N + same] = (r1 + r2) / 2 * x[0][same];
    p->C[i * N + differ] = (r1 - r2) / 2 * x[0][differ];
}

// The forged C: true values where the sample looks, zero elsewhere, then two elements per
// unsampled row set so that C·x1 and C·x2 equal A(B·x1) and A(B·x2). O(MN + sample·K) work.
static void forge(problem *p, uint64_t seed)
{
    gemm_sample *s = lab_xcalloc(1, sizeof *s);
    draw_gemm_sample(seed, s);
    mark_sample(p, s);
    for (size_t t = 0; t < M * N; t++)
        p->C[t] = p->exact[t] ? exact_entry(p, t / N, t % N) : 0.0;
    double *abx1 = a_b_x(p, s->x[0]), *abx2 = a_b_x(p, s->x[1]);
    for (size_t i = 0; i < M; i++) {
        int sampled_row = 0;
        for (size_t t = 0; t < SAMPLED; t++)
            sampled_row |= s->rows[t] == i;
        if (!sampled_row)
            fix_row(p, i, s->x, abx1, abx2);
    }
    free(abx1);
    free(abx2);
    free(s->x[0]);
    free(s->x[1]);
    free(s);
}

static int check_passes(const problem *p, lab_compare_result *r)
{
    lab_compare_init(r);
    lab_check_gemm_f64(p->A, p->B, p->C, M, N, K, TOL, SEED, r);
    return lab_compare_passed(r);
}

// How many elements of row i are off by more than 1e-3: the forge is wrong, not nearly right.
static size_t wrong_in_row(const problem *p, size_t i)
{
    size_t wrong = 0;
    for (size_t j = 0; j < N; j++)
        wrong += fabs(p->C[i * N + j] - exact_entry(p, i, j)) > 1e-3;
    return wrong;
}

static void forge_passes_unsalted_and_fails_salted(void **state)
{
    (void)state;
    assert_true(M * N * K > LAB_GEMM_EXACT_LIMIT);
    problem p = {lab_xmalloc(M * K * sizeof(double)), lab_xmalloc(K * N * sizeof(double)),
                 lab_xmalloc(M * N * sizeof(double)), lab_xcalloc(M * N, 1)};
    lab_fill_f64(p.A, M * K, -1, 1, lab_seed_derive(SEED, "A"));
    lab_fill_f64(p.B, K * N, -1, 1, lab_seed_derive(SEED, "B"));
    forge(&p, SEED);
    size_t unsampled = 0;
    while (p.exact[unsampled * N + 1])
        unsampled++; // a row the sample does not cover whole
    assert_true(wrong_in_row(&p, unsampled) > N / 2);

    lab_compare_result r;
    lab_check_salt_set(0);
    assert_true(check_passes(&p, &r)); // the forge beats a check whose sample the seed gives away
    assert_true(lab_check_salt_fresh() != 0);
    assert_false(check_passes(&p, &r)); // ... and not one that looks where nobody could know
    assert_true(r.bad > 0 || r.note[0]);
    lab_check_salt_set(0);
    free(p.A);
    free(p.B);
    free(p.C);
    free(p.exact);
}

// Salt 0 is the unsalted sample (demos and tests stay reproducible); any other salt moves it,
// and two fresh salts differ.
static void salt_moves_the_sample(void **state)
{
    (void)state;
    lab_check_salt_set(0);
    assert_true(lab_check_salt() == 0);
    assert_true(lab_check_seed(5, "gemm-check") == lab_seed_derive(5, "gemm-check"));
    lab_check_salt_set(99);
    assert_true(lab_check_salt() == 99);
    assert_true(lab_check_seed(5, "gemm-check") != lab_seed_derive(5, "gemm-check"));
    assert_true(lab_check_seed(5, "gemm-check") == lab_check_seed(5, "gemm-check"));
    uint64_t a = lab_check_salt_fresh(), b = lab_check_salt_fresh();
    assert_true(a != 0 && b != 0 && a != b);
    assert_true(lab_check_salt() == b);
    lab_check_salt_set(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(salt_moves_the_sample),
        cmocka_unit_test(forge_passes_unsalted_and_fails_salted),
    };
    return cmocka_run_group_tests_name("lab check salt", tests, NULL, NULL);
}

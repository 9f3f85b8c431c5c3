// Lesson 09's check of C = AᵀA against code that knows the input seed, as the gemm check's
// test does for C = A·B: a C that is wrong, yet exact wherever an unsalted check looks and
// invisible to its Freivalds vectors, passes with salt 0 and fails once the salt is fresh.
#include "cmocka_all.h"
#include "ata_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ROWS = 4, ENTRIES = 1024, ROUNDS = 3, COLS = 1024 };

// 130·1024·1024 = 1.36e8 multiply-adds: just above ATA_EXACT_LIMIT, so the check samples.
static const size_t M = 130, N = COLS;
static const uint64_t SEED = 11;
static const lab_tolerance TOL = {0, 1e-10};

typedef struct ata_sample {
    size_t rows[ROWS];
    size_t entry[ENTRIES][2];
    signed char x[ROUNDS][COLS]; // the Freivalds vectors
} ata_sample;

// Everything the forger knows about the check, in one place: what lessons/09-ata-cublas
// ata_check.c draws from lab_seed_derive(seed, "ata-check") when the salt is 0, in its order.
// The diagonal is checked whole and draws nothing.
//  1. 4 exact rows: row 0, row N-1, then two lab_rng_below(N).
//  2. 1024 exact entries, two lab_rng_below(N) each (the row first; C is symmetric, so the
//     forge keeps both (a, b) and (b, a) exact either way).
//  3. Three Freivalds rounds of N signs each: bit 0 of lab_rng_next, 1 -> +1, 0 -> -1.
static void draw_ata_sample(uint64_t seed, ata_sample *s)
{
    lab_rng rng;
    lab_rng_seed(&rng, lab_seed_derive(seed, "ata-check"));
    for (size_t t = 0; t < ROWS; t++)
        s->rows[t] = t == 0 ? 0 : t == 1 ? N - 1 : lab_rng_below(&rng, N);
    for (size_t t = 0; t < ENTRIES; t++) {
        s->entry[t][0] = lab_rng_below(&rng, N);
        s->entry[t][1] = lab_rng_below(&rng, N);
    }
    for (int round = 0; round < ROUNDS; round++)
        for (size_t j = 0; j < N; j++)
            s->x[round][j] = lab_rng_next(&rng) & 1 ? 1 : -1;
}

// A vector u on the four indices f[] with sum_j u_j x_t[f_j] = 0 for all three rounds: the
// cofactors of the 3×4 sign matrix (integers, so the sums vanish exactly).
static void null_vector(const ata_sample *s, const size_t f[4], double u[4])
{
    for (int j = 0; j < 4; j++) {
        double m[3][3];
        for (int t = 0; t < ROUNDS; t++)
            for (int c = 0, k = 0; k < 4; k++)
                if (k != j)
                    m[t][c++] = s->x[t][f[k]];
        double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        u[j] = j % 2 ? -det : det;
    }
}

// One block of the forge: E = u vᵀ + v uᵀ with u on f[0..3] and v on f[4..7] adds nothing to
// C·x for any of the three vectors, stays symmetric, and leaves the diagonal alone. Skipped
// where it would touch a sampled entry.
static void add_block(double *C, const unsigned char *sampled, const ata_sample *s, const size_t f[8])
{
    double u[4], v[4];
    null_vector(s, f, u);
    null_vector(s, f + 4, v);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            if (sampled[f[a] * N + f[4 + b]] && u[a] * v[b] != 0)
                return;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            C[f[a] * N + f[4 + b]] += u[a] * v[b];
            C[f[4 + b] * N + f[a]] += u[a] * v[b];
        }
}

// 8 distinct indices of rows the sample does not check whole.
static void pick_block(lab_rng *rng, const unsigned char *whole, size_t f[8])
{
    for (int k = 0; k < 8; k++) {
        int fresh;
        do {
            f[k] = lab_rng_below(rng, N);
            fresh = !whole[f[k]];
            for (int q = 0; q < k; q++)
                fresh &= f[q] != f[k];
        } while (!fresh);
    }
}

// The forged C: the true AᵀA plus 2000 blocks of E (they add up: each leaves C·x alone) on
// rows the sample does not check whole and away from its entries. Unlike the gemm forge it
// starts from the true product: what this shows is where the check looks, not what it costs.
static void forge(const double *A, double *C, uint64_t seed)
{
    ata_sample *s = lab_xcalloc(1, sizeof *s);
    unsigned char *sampled = lab_xcalloc(N * N, 1), *whole = lab_xcalloc(N, 1);
    draw_ata_sample(seed, s);
    for (size_t t = 0; t < ROWS; t++)
        whole[s->rows[t]] = 1;
    for (size_t t = 0; t < ENTRIES; t++) {
        sampled[s->entry[t][0] * N + s->entry[t][1]] = 1;
        sampled[s->entry[t][1] * N + s->entry[t][0]] = 1;
    }
    ata_reference(A, C, M, N);
    lab_rng rng;
    lab_rng_seed(&rng, 2024);
    for (int b = 0; b < 2000; b++) {
        size_t f[8];
        pick_block(&rng, whole, f);
        add_block(C, sampled, s, f);
    }
    free(s);
    free(sampled);
    free(whole);
}

// Elements off by 0.5 or more, from true values of a few units (the diagonal: about M/3).
static size_t count_wrong(const double *C, const double *exact)
{
    size_t wrong = 0;
    for (size_t t = 0; t < N * N; t++)
        wrong += fabs(C[t] - exact[t]) >= 0.5;
    return wrong;
}

static int check_passes(const double *A, const double *C, lab_compare_result *r)
{
    lab_compare_init(r);
    ata_check(A, C, M, N, TOL, SEED, r);
    return lab_compare_passed(r);
}

static void forge_passes_unsalted_and_fails_salted(void **state)
{
    (void)state;
    assert_true(M * N * N > ATA_EXACT_LIMIT);
    double *A = lab_xmalloc(M * N * sizeof *A), *C = lab_xmalloc(N * N * sizeof *C),
           *exact = lab_xmalloc(N * N * sizeof *exact);
    lab_fill_f64(A, M * N, -1, 1, lab_seed_derive(SEED, "A"));
    forge(A, C, SEED);
    ata_reference(A, exact, M, N);
    size_t wrong = count_wrong(C, exact);
    assert_true(wrong >= 5000);

    lab_compare_result r;
    lab_check_salt_set(0);
    assert_true(check_passes(A, C, &r)); // the forge beats a check whose sample the seed gives away
    assert_true(lab_check_salt_fresh() != 0);
    assert_false(check_passes(A, C, &r)); // ... and not one that looks where nobody could know
    assert_non_null(strstr(r.note, "Freivalds"));
    assert_true(check_passes(A, exact, &r)); // the right answer passes wherever the check looks
    lab_check_salt_set(0);
    free(A);
    free(C);
    free(exact);
}

static void assert_same_result(const lab_compare_result *a, const lab_compare_result *b)
{
    assert_int_equal(a->checked, b->checked);
    assert_int_equal(a->bad, b->bad);
    assert_int_equal(a->shown, b->shown);
    assert_true(a->max_abs_err == b->max_abs_err && a->max_rel_err == b->max_rel_err);
    assert_string_equal(a->note, b->note);
    for (size_t i = 0; i < a->shown; i++) {
        assert_int_equal(a->first[i].index, b->first[i].index);
        assert_true(a->first[i].expected == b->first[i].expected);
        assert_memory_equal(&a->first[i].got, &b->first[i].got, sizeof(double)); // NaN included
    }
}

// One plan of A applied to several C's (the demo's versions) gives what ata_check gives for
// each, above and below the exact limit: the right product passes, one element off by 1e-3
// fails (Freivalds' test, or the exact rows), a NaN fails at its place, and the plan is
// unchanged by an apply that failed.
static void one_plan_checks_many_results(void **state)
{
    (void)state;
    const size_t shapes[][2] = {{M, N}, {8, 200}, {301, 700}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const size_t m = shapes[s][0], n = shapes[s][1], at = (n - 1) * n / 3 + 5;
        double *A = lab_xmalloc(m * n * sizeof *A), *C = lab_xmalloc(n * n * sizeof *C);
        lab_fill_f64(A, m * n, -1, 1, lab_seed_derive(SEED, "plan"));
        ata_reference(A, C, m, n);
        ata_check_plan *plan = ata_check_prepare(A, m, n, SEED);
        const double right = C[at];
        const double wrong[] = {right, right + 1e-3, NAN, right};
        for (size_t w = 0; w < sizeof wrong / sizeof *wrong; w++) {
            C[at] = wrong[w];
            lab_compare_result whole, planned;
            lab_compare_init(&whole);
            lab_compare_init(&planned);
            ata_check(A, C, m, n, TOL, SEED, &whole);
            ata_check_apply(plan, A, C, TOL, &planned);
            assert_same_result(&whole, &planned);
            assert_int_equal(lab_compare_passed(&planned), w == 0 || w == 3);
            if (w == 2)
                assert_int_equal(planned.first[0].index, at);
        }
        ata_check_plan_free(plan);
        free(A);
        free(C);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forge_passes_unsalted_and_fails_salted),
        cmocka_unit_test(one_plan_checks_many_results),
    };
    return cmocka_run_group_tests_name("ata check", tests, NULL, NULL);
}

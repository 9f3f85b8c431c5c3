// Tolerance comparison and the matrix-product check, exact and Freivalds paths, and the pure
// parts of the GPU's full check (its element rule, its summary, what the report says).
#include "cmocka_all.h"
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void counts_errors_and_first_mismatches(void **state)
{
    (void)state;
    float e[5] = {1, 2, 3, 4, 5}, g[5] = {1, 2.5f, 3, NAN, 5.000001f};
    lab_compare_result r;
    lab_compare_init(&r);
    lab_tolerance tol = {0, 1e-5};
    lab_compare_f32(e, g, 5, tol, &r);
    assert_int_equal(r.checked, 5);
    assert_int_equal(r.bad, 2);
    assert_int_equal(r.shown, 2);
    assert_int_equal(r.first[0].index, 1);
    assert_true(r.first[0].got == 2.5);
    assert_int_equal(r.first[1].index, 3);
    assert_true(isnan(r.first[1].got));
    assert_true(fabs(r.max_abs_err - 0.5) < 1e-12);
    assert_false(lab_compare_passed(&r));
}

static void tolerance_is_abs_plus_rel(void **state)
{
    (void)state;
    lab_compare_result r;
    lab_compare_init(&r);
    lab_tolerance tol = {0.1, 0.01};
    assert_true(lab_compare_one(&r, 0, 100.0, 101.05, 100.0, tol));  // 1.05 <= 0.1 + 1
    assert_false(lab_compare_one(&r, 1, 100.0, 101.2, 100.0, tol)); // 1.2 > 1.1
    assert_true(lab_compare_one(&r, 2, INFINITY, INFINITY, 0, tol));
    assert_false(lab_compare_one(&r, 3, 1.0, INFINITY, 1.0, tol));
    assert_int_equal(r.bad, 2);
}

static void integers_and_notes(void **state)
{
    (void)state;
    int32_t e[3] = {1, 2, 3}, g[3] = {1, 2, 4};
    lab_compare_result r;
    lab_compare_init(&r);
    lab_compare_i32(e, g, 3, &r);
    assert_int_equal(r.bad, 1);
    lab_compare_init(&r);
    assert_true(lab_compare_passed(&r));
    lab_compare_fail(&r, "count %d, expected %d", 5, 7);
    lab_compare_fail(&r, "second");
    assert_false(lab_compare_passed(&r));
    assert_string_equal(r.note, "count 5, expected 7; second");
}

static void mismatch_text_names_row_and_col(void **state)
{
    (void)state;
    lab_mismatch m = {1000, 1.5, 0};
    char buf[160];
    lab_mismatch_format(&m, 65, buf, sizeof buf);
    assert_string_equal(buf, "[1000] (row 15, col 25) expected 1.5 got 0");
    lab_mismatch_format(&m, 0, buf, sizeof buf);
    assert_string_equal(buf, "[1000] expected 1.5 got 0");
}

static double expected_from_array(size_t i, const void *arg, double *scale)
{
    const double v = ((const float *)arg)[i];
    *scale = fabs(v);
    return v;
}

// On every core, cut in chunks: the same counts, errors and first mismatches as one loop.
static void chunked_compare_is_the_serial_one(void **state)
{
    (void)state;
    const size_t n = 5 * LAB_COMPARE_CHUNK + 17;
    float *e = malloc(n * sizeof *e), *g = malloc(n * sizeof *g);
    lab_fill_f32(e, n, -4, 4, 11);
    memcpy(g, e, n * sizeof *g);
    // mismatches in the last chunks first in memory order only, more than can be shown
    const size_t bad_at[] = {n - 1, 3 * LAB_COMPARE_CHUNK + 5, 2 * LAB_COMPARE_CHUNK - 1,
                             2 * LAB_COMPARE_CHUNK, 4 * LAB_COMPARE_CHUNK + 9, 7, 8, 9,
                             LAB_COMPARE_CHUNK + 1, 3 * LAB_COMPARE_CHUNK};
    for (size_t k = 0; k < sizeof bad_at / sizeof bad_at[0]; k++)
        g[bad_at[k]] += 1.0f + (float)k;
    g[4 * LAB_COMPARE_CHUNK + 100] = NAN;
    lab_tolerance tol = {1e-6, 1e-5};
    lab_compare_result serial, chunked;
    lab_compare_init(&serial);
    lab_compare_init(&chunked);
    for (size_t i = 0; i < n; i++)
        lab_compare_one(&serial, i, e[i], g[i], fabs((double)e[i]), tol);
    lab_compare_f32(e, g, n, tol, &chunked);
    assert_int_equal(chunked.checked, n);
    assert_int_equal(chunked.bad, serial.bad);
    assert_int_equal(chunked.bad, 11);
    assert_true(chunked.max_abs_err == serial.max_abs_err);
    assert_true(chunked.max_rel_err == serial.max_rel_err);
    assert_int_equal(chunked.shown, LAB_MAX_SHOWN);
    for (size_t k = 0; k < LAB_MAX_SHOWN; k++) {
        assert_int_equal(chunked.first[k].index, serial.first[k].index);
        assert_true(chunked.first[k].got == serial.first[k].got ||
                    (isnan(chunked.first[k].got) && isnan(serial.first[k].got)));
    }
    assert_int_equal(chunked.first[0].index, 7);
    // the same check with the expected values worked out element by element
    lab_compare_result each;
    lab_compare_init(&each);
    lab_compare_f32_each(g, n, expected_from_array, e, tol, &each);
    assert_int_equal(each.bad, serial.bad);
    assert_int_equal(each.checked, n);
    assert_true(each.max_rel_err == serial.max_rel_err);
    for (size_t k = 0; k < LAB_MAX_SHOWN; k++)
        assert_int_equal(each.first[k].index, serial.first[k].index);
    free(e);
    free(g);
}

typedef struct gemm {
    size_t M, N, K;
    float *A, *B, *C;
} gemm;

static gemm make_gemm(size_t M, size_t N, size_t K)
{
    gemm g = {M, N, K, malloc(M * K * 4), malloc(K * N * 4), malloc(M * N * 4)};
    lab_fill_f32(g.A, M * K, -1, 1, 1);
    lab_fill_f32(g.B, K * N, -1, 1, 2);
    lab_gemm_ref_f32(g.A, g.B, g.C, M, N, K);
    return g;
}

static void free_gemm(gemm *g)
{
    free(g->A);
    free(g->B);
    free(g->C);
}

static int gemm_passes(const gemm *g)
{
    lab_compare_result r;
    lab_compare_init(&r);
    lab_tolerance tol = {0, 5e-5};
    lab_check_gemm_f32(g->A, g->B, g->C, g->M, g->N, g->K, tol, 3, &r);
    return lab_compare_passed(&r);
}

static void gemm_exact_path(void **state)
{
    (void)state;
    gemm g = make_gemm(37, 29, 53);
    assert_true(gemm_passes(&g));
    g.C[100] += 0.01f;
    assert_false(gemm_passes(&g));
    g.C[100] -= 0.01f;
    g.C[5] = NAN;
    assert_false(gemm_passes(&g));
    free_gemm(&g);
}

// Above LAB_GEMM_EXACT_LIMIT: a transposed result and a zeroed 32×32 tile must still fail.
static void gemm_freivalds_path(void **state)
{
    (void)state;
    gemm g = make_gemm(1400, 1400, 1100); // 2.16e9 > 2^31 multiply-adds
    assert_true(g.M * g.N * g.K > LAB_GEMM_EXACT_LIMIT);
    assert_true(gemm_passes(&g));
    lab_check_salt_fresh(); // a right answer passes wherever the check looks
    assert_true(gemm_passes(&g));
    lab_check_salt_set(0);
    float *saved = malloc(g.M * g.N * 4);
    memcpy(saved, g.C, g.M * g.N * 4);
    for (size_t i = 0; i < g.M; i++)
        for (size_t j = 0; j < g.N; j++)
            g.C[i * g.N + j] = saved[j * g.N + i];
    assert_false(gemm_passes(&g));
    memcpy(g.C, saved, g.M * g.N * 4);
    for (size_t i = 600; i < 632; i++)
        for (size_t j = 700; j < 732; j++)
            g.C[i * g.N + j] = 0;
    assert_false(gemm_passes(&g));
    // one element 35 times its tolerance, below what Freivalds' check can see: found by the
    // exact check of the last column, which is always among the sampled ones
    memcpy(g.C, saved, g.M * g.N * 4);
    g.C[777 * g.N + g.N - 1] += 0.5f;
    assert_false(gemm_passes(&g));
    free(saved);
    free_gemm(&g);
}

// The per-element rule of the GPU's full check is lab_element_fails, the one lab_compare_one
// applies: for a product entry the scale is sum_k |A_ik B_kj|, so a sum that cancels to 0
// still has a tolerance of rtol times its terms.
static void element_rule_of_product_entries(void **state)
{
    (void)state;
    const lab_tolerance gemm = {0.0, 5e-5};
    // expected 0 from terms whose magnitudes add to 1000: 0.05 of room
    assert_false(lab_element_fails(0.0, 0.049, 1000.0, gemm));
    assert_true(lab_element_fails(0.0, 0.051, 1000.0, gemm));
    assert_false(lab_element_fails(0.0, -0.049, 1000.0, gemm));
    // one term of the sum missing (about 1/K of the scale at K = 4096) is far outside
    assert_true(lab_element_fails(10.0, 10.0 + 1000.0 / 4096, 1000.0, gemm));
    // non-finite values: equal ones pass, a NaN (a poisoned, unwritten output) never does
    assert_false(lab_element_fails(NAN, NAN, 0, gemm));
    assert_false(lab_element_fails(INFINITY, INFINITY, 0, gemm));
    assert_true(lab_element_fails(1.0, NAN, 1.0, gemm));
    assert_true(lab_element_fails(NAN, 1.0, 1.0, gemm));
    assert_true(lab_element_fails(INFINITY, -INFINITY, 1.0, gemm));
    assert_true(lab_element_fails(1.0, INFINITY, 1e300, gemm));
    // the absolute part adds to the relative one
    const lab_tolerance both = {0.1, 0.01};
    assert_false(lab_element_fails(100.0, 101.05, 100.0, both));
    assert_true(lab_element_fails(100.0, 101.2, 100.0, both));
    // and lab_compare_one decides as it does
    lab_compare_result r;
    lab_compare_init(&r);
    assert_int_equal(lab_compare_one(&r, 0, 0.0, 0.051, 1000.0, gemm), 0);
    assert_int_equal(lab_compare_one(&r, 1, 0.0, 0.049, 1000.0, gemm), 1);
    assert_int_equal(r.bad, 1);
}

// The GPU's summary is added to a result as a merged chunk is: counts summed, largest errors
// kept, its first mismatches after the ones already there, at most LAB_MAX_SHOWN in all.
static void gpu_summary_adds_to_a_result(void **state)
{
    (void)state;
    lab_compare_result r;
    lab_compare_init(&r);
    const lab_tolerance tol = {0, 0};
    lab_compare_one(&r, 3, 1.0, 2.0, 1.0, tol); // an earlier repetition's mismatch
    lab_compare_summary s;
    memset(&s, 0, sizeof s);
    s.checked = 1000;
    s.bad = 12;
    s.max_abs_err = 0.25;
    s.max_rel_err = 7.0;
    s.shown = LAB_MAX_SHOWN;
    for (size_t i = 0; i < LAB_MAX_SHOWN; i++)
        s.first[i] = (lab_mismatch){100 + i, (double)i, (double)i + 1};
    lab_compare_add(&r, &s);
    assert_int_equal(r.checked, 1001);
    assert_int_equal(r.bad, 13);
    assert_true(r.max_abs_err == 1.0); // the earlier one was larger
    assert_true(r.max_rel_err == 7.0);
    assert_int_equal(r.shown, LAB_MAX_SHOWN);
    assert_int_equal(r.first[0].index, 3);
    assert_int_equal(r.first[1].index, 100);
    assert_int_equal(r.first[LAB_MAX_SHOWN - 1].index, 100 + LAB_MAX_SHOWN - 2);
    assert_false(lab_compare_passed(&r));
    assert_string_equal(r.note, "");
    // a clean summary leaves a clean result passing
    lab_compare_init(&r);
    memset(&s, 0, sizeof s);
    s.checked = 16;
    lab_compare_add(&r, &s);
    assert_true(lab_compare_passed(&r));
    assert_int_equal(r.checked, 16);
}

// What the report says of a case's check is its weakest repetition's, and never a failure.
static void check_text_keeps_the_weakest(void **state)
{
    (void)state;
    lab_compare_result r;
    lab_compare_init(&r);
    assert_string_equal(r.check, "");
    lab_compare_set_check(&r, 0, "every element, on the GPU (%.2f s)", 0.5);
    assert_string_equal(r.check, "every element, on the GPU (0.50 s)");
    lab_compare_set_check(&r, 0, "every element, on the GPU (%.2f s)", 0.7);
    assert_string_equal(r.check, "every element, on the GPU (0.50 s)");
    lab_compare_set_check(&r, 1, "sampled, on the CPU (%s)", "no usable GPU");
    assert_string_equal(r.check, "sampled, on the CPU (no usable GPU)");
    lab_compare_set_check(&r, 0, "every element, on the GPU");
    assert_string_equal(r.check, "sampled, on the CPU (no usable GPU)");
    assert_true(lab_compare_passed(&r));
}

// --verify asks for the full check on its device; nothing else does.
static void full_check_request_is_the_verifiers(void **state)
{
    (void)state;
    lab_options o;
    char *plain[] = {"prog", "--seed", "3", NULL};
    assert_int_equal(lab_cli_parse(3, plain, "test", NULL, &o), 0);
    assert_int_equal(lab_full_check_ordinal(), -1);
    char *verify[] = {"prog", "--verify", "/tmp", "--device", "2", NULL};
    assert_int_equal(lab_cli_parse(5, verify, "test", NULL, &o), 0);
    assert_int_equal(lab_full_check_ordinal(), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_errors_and_first_mismatches),
        cmocka_unit_test(tolerance_is_abs_plus_rel),
        cmocka_unit_test(integers_and_notes),
        cmocka_unit_test(mismatch_text_names_row_and_col),
        cmocka_unit_test(chunked_compare_is_the_serial_one),
        cmocka_unit_test(gemm_exact_path),
        cmocka_unit_test(gemm_freivalds_path),
        cmocka_unit_test(element_rule_of_product_entries),
        cmocka_unit_test(gpu_summary_adds_to_a_result),
        cmocka_unit_test(check_text_keeps_the_weakest),
        cmocka_unit_test(full_check_request_is_the_verifiers),
    };
    return cmocka_run_group_tests_name("lab compare", tests, NULL, NULL);
}

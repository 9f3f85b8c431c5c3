/* Unit tests of the TAP 14 report reader (grader/tap.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const char *const sample =
    "TAP version 14\n"
    "# program: build/exercises/03-naive-matmul/matmul_naive\n"
    "# task: matmul_naive\n"
    "# seed: 42\n"
    "# device: NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)\n"
    "1..3\n"
    "ok 1 - 1x1x1\n"
    "  ---\n"
    "  status: pass\n"
    "  time_ms: 0.0123\n"
    "  throughput: 0.000163\n"
    "  unit: GFLOP/s\n"
    "  checked: 1\n"
    "  bad: 0\n"
    "  ...\n"
    "not ok 2 - 17x31x5\n"
    "  ---\n"
    "  status: fail\n"
    "  bad: 527\n"
    "  first_mismatch: \"[0] (row 0, col 0) expected 1.25 got nan\"\n"
    "  mismatches: \"[0] expected 1.25 got nan; [1] a \\\"quoted\\\" \\\\ one\"\n"
    "  note: \"count 5, expected 7\"\n"
    "  ...\n"
    "ok 3 - 4096x4096x4096 # SKIP not on this GPU\n";

static void reads_header_and_cases(void **state)
{
    (void)state;
    struct tap_report r;
    tap_parse_string(sample, &r);
    assert_int_equal(r.planned, 3);
    assert_string_equal(r.task, "matmul_naive");
    assert_string_equal(r.device, "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)");
    assert_true(r.has_seed);
    assert_int_equal(r.seed, 42);
    assert_int_equal(r.n_cases, 3);
    const struct tap_case *a = tap_find(&r, "1x1x1");
    assert_non_null(a);
    assert_true(a->ok);
    assert_string_equal(a->status, "pass");
    assert_float_equal(a->time_ms, 0.0123, 1e-12);
    assert_string_equal(a->unit, "GFLOP/s");
    assert_int_equal(a->checked, 1);
    assert_non_null(tap_find(&r, "4096x4096x4096"));
    tap_report_free(&r);
}

static void reads_quoted_strings_and_absent_keys(void **state)
{
    (void)state;
    struct tap_report r;
    tap_parse_string(sample, &r);
    const struct tap_case *b = tap_find(&r, "17x31x5");
    assert_non_null(b);
    assert_false(b->ok);
    assert_string_equal(b->status, "fail");
    assert_int_equal(b->bad, 527);
    assert_int_equal(b->checked, -1);
    assert_true(b->time_ms < 0);
    assert_string_equal(b->first_mismatch, "[0] (row 0, col 0) expected 1.25 got nan");
    assert_string_equal(b->mismatches, "[0] expected 1.25 got nan; [1] a \"quoted\" \\ one");
    assert_string_equal(b->note, "count 5, expected 7");
    tap_report_free(&r);
}

static void a_cut_report_keeps_what_was_written(void **state)
{
    (void)state;
    struct tap_report r;
    tap_parse_string("TAP version 14\nok 1 - a\n  ---\n  status: pass\n  time_ms: 2\nnot ok 2 - b\n  --", &r);
    assert_int_equal(r.n_cases, 2);
    assert_int_equal(r.planned, -1);
    assert_float_equal(tap_find(&r, "a")->time_ms, 2, 0);
    assert_string_equal(tap_find(&r, "b")->status, "");
    assert_null(tap_find(&r, "c"));
    tap_report_free(&r);
}

static void unquote(void **state)
{
    (void)state;
    char *s = tap_unquote("  plain value  ");
    assert_string_equal(s, "plain value");
    free(s);
    s = tap_unquote("\"a\\nb\\tc\"");
    assert_string_equal(s, "a\nb\tc");
    free(s);
}

static void a_missing_file_is_an_empty_report(void **state)
{
    (void)state;
    struct tap_report r;
    assert_int_equal(tap_parse_file("/nonexistent/report.tap", &r), -1);
    assert_int_equal(r.n_cases, 0);
    tap_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_header_and_cases),
        cmocka_unit_test(reads_quoted_strings_and_absent_keys),
        cmocka_unit_test(a_cut_report_keeps_what_was_written),
        cmocka_unit_test(unquote),
        cmocka_unit_test(a_missing_file_is_an_empty_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

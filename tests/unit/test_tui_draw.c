/* test_tui_draw.c — the TUI's text measuring: display columns, clipping and word wrap in
 * UTF-8, the outcome-to-role table that every screen colors by, and how a skip's reason and
 * a forbidden word are shown. */
#include "cmocka_all.h"

#include <locale.h>
#include <string.h>

#include "tui_screen.h"

static int setup_utf8(void **state)
{
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

static void width_counts_cells_not_bytes(void **state)
{
    (void)state;
    assert_int_equal(tui_width(""), 0);
    assert_int_equal(tui_width("matmul"), 6);
    assert_int_equal(tui_width("C = A\xc2\xb7" "B"), 7);          /* middle dot: 2 bytes, 1 cell */
    assert_int_equal(tui_width("\xe2\x96\x88\xe2\x96\x91"), 2);   /* block glyphs */
    assert_int_equal(tui_width("\xe6\x97\xa5"), 2);               /* a wide CJK character */
    assert_int_equal(tui_width("a\xffz"), 3);                    /* an invalid byte: one cell */
}

static void fit_never_splits_a_character(void **state)
{
    (void)state;
    int used;
    const char *s = "A\xc2\xb7" "B";
    assert_int_equal(tui_fit(s, 2, &used), 3);   /* "A·": 3 bytes, 2 cells */
    assert_int_equal(used, 2);
    assert_int_equal(tui_fit(s, 10, &used), strlen(s));
    assert_int_equal(used, 3);
    assert_int_equal(tui_fit("\xe6\x97\xa5x", 1, &used), 0);   /* a wide char does not fit in 1 */
    assert_int_equal(used, 0);
    assert_int_equal(tui_fit("abc", 0, NULL), 0);
}

static void wrap_breaks_after_a_space(void **state)
{
    (void)state;
    int used;
    const char *s = "first mismatch at index 17";
    size_t n = tui_wrap(s, 12, &used);
    assert_int_equal(n, strlen("first "));          /* "first mismatch" would not fit */
    assert_int_equal(used, 6);
    n = tui_wrap(s, 100, &used);
    assert_int_equal(n, strlen(s));
    assert_int_equal(used, (int)strlen(s));
}

static void wrap_cuts_a_long_word_and_always_advances(void **state)
{
    (void)state;
    int used;
    const char *s = "exercises/03-naive-matmul/matmul_naive.cu:42";
    assert_int_equal(tui_wrap(s, 10, &used), 10);
    assert_int_equal(used, 10);
    assert_int_equal(tui_wrap("\xe6\x97\xa5", 1, &used), 3);    /* wider than the row: taken */
    assert_int_equal(used, 2);
}

static void every_outcome_has_a_distinct_look(void **state)
{
    (void)state;
    assert_int_equal(tui_outcome_role(OUTCOME_PASSED), TUI_C_PASS);
    assert_int_equal(tui_outcome_role(OUTCOME_WRONG), TUI_C_WRONG);
    assert_int_equal(tui_outcome_role(OUTCOME_CRASHED), TUI_C_FAILURE);
    assert_int_equal(tui_outcome_role(OUTCOME_TOO_SLOW), TUI_C_WARN);
    assert_int_equal(tui_outcome_role(OUTCOME_SKIPPED), TUI_C_SKIP);
    assert_int_equal(tui_outcome_role(OUTCOME_NOT_RUN), TUI_C_NOT_RUN);
    assert_string_not_equal(tui_outcome_glyph(OUTCOME_PASSED, 0),
                            tui_outcome_glyph(OUTCOME_WRONG, 0));
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        assert_int_equal(tui_width(tui_outcome_glyph((enum grader_outcome)o, 1)), 1);
        assert_int_equal(strlen(tui_outcome_glyph((enum grader_outcome)o, 0)), 1);
    }
}

static void spinner_frames_are_one_cell(void **state)
{
    (void)state;
    for (unsigned t = 0; t < 12; t++) {
        assert_int_equal(tui_width(tui_spinner(t, 1)), 1);
        assert_int_equal(strlen(tui_spinner(t, 0)), 1);
    }
    assert_string_not_equal(tui_spinner(0, 1), tui_spinner(1, 1));
}

static void a_skip_reason_is_not_said_twice(void **state)
{
    (void)state;
    assert_string_equal(tui_reason(OUTCOME_SKIPPED, "SKIP: no CUDA device"), "no CUDA device");
    assert_string_equal(tui_reason(OUTCOME_SKIPPED, "skipped: no usable GPU"), "no usable GPU");
    assert_string_equal(tui_reason(OUTCOME_SKIPPED, "skipped: SKIP: x"), "x");
    assert_string_equal(tui_reason(OUTCOME_WRONG, "SKIP: kept"), "SKIP: kept");
}

static void forbid_words_read_as_library_names(void **state)
{
    (void)state;
    assert_string_equal(tui_forbid_word("3cub"), "cub");
    assert_string_equal(tui_forbid_word("cublas"), "cublas");
    assert_string_equal(tui_forbid_word("6thrust"), "thrust");
    assert_string_equal(tui_forbid_word("42"), "42");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(width_counts_cells_not_bytes),
        cmocka_unit_test(fit_never_splits_a_character),
        cmocka_unit_test(wrap_breaks_after_a_space),
        cmocka_unit_test(wrap_cuts_a_long_word_and_always_advances),
        cmocka_unit_test(every_outcome_has_a_distinct_look),
        cmocka_unit_test(spinner_frames_are_one_cell),
        cmocka_unit_test(a_skip_reason_is_not_said_twice),
        cmocka_unit_test(forbid_words_read_as_library_names),
    };
    return cmocka_run_group_tests(tests, setup_utf8, NULL);
}

/* The gradebook: results.json round trip, CSV cells and quoting, JUnit kinds from the outcome
 * table, UTF-8 cleaning, atomic writes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "gradebook.h"

static void make_student(struct gb_student *s, const char *name)
{
    gb_student_init(s, name);
    free(s->hash);
    s->hash = strdup("abc123");
    s->seed = 18446744073709551615ull;
    s->seed_known = 1;
    s->execution_time = 12.5;
    s->graded_at = 1700000000;
    assert_int_equal(gb_student_add_task(s, "01-a/one", "First", 10, 10, "passed", "", NULL), 0);
    cJSON *detail = cJSON_CreateObject();
    cJSON_AddStringToObject(detail, "reason", "case 7: wrong");
    assert_int_equal(gb_student_add_task(s, "01-a/two", "Second", 0, 5, "wrong",
                                         "wrong: case 7\n  first mismatch \"x\"", detail), 0);
    assert_int_equal(gb_student_add_task(s, "02-b/three", "", 0, 3, GB_NOT_SUBMITTED,
                                         "not submitted", NULL), 0);
}

static void test_results_round_trip(void **state)
{
    (void)state;
    struct gb_student s, back;
    make_student(&s, "alice");
    char *text = gb_results_to_json(&s);
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    /* Gradescope's own fields */
    assert_true(cJSON_GetObjectItem(j, "score")->valuedouble == 10);
    cJSON *tests = cJSON_GetObjectItem(j, "tests");
    assert_int_equal(cJSON_GetArraySize(tests), 3);
    cJSON *t1 = cJSON_GetArrayItem(tests, 1);
    assert_string_equal(cJSON_GetObjectItem(t1, "status")->valuestring, "failed");
    assert_true(cJSON_GetObjectItem(t1, "max_score")->valuedouble == 5);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(tests, 0), "status")->valuestring,
                        "passed");
    cJSON_Delete(j);

    char err[256];
    gb_student_init(&back, "someone");
    assert_int_equal(gb_results_from_json(text, &back, err, sizeof err), 0);
    assert_string_equal(back.name, "alice");
    assert_string_equal(back.hash, "abc123");
    assert_true(back.seed == 18446744073709551615ull);
    assert_int_equal(back.n_tasks, 3);
    assert_string_equal(back.tasks[1].outcome, "wrong");
    assert_string_equal(back.tasks[1].output, "wrong: case 7\n  first mismatch \"x\"");
    assert_non_null(back.tasks[1].detail);
    assert_null(back.tasks[0].detail);
    assert_string_equal(back.tasks[2].title, "02-b/three"); /* no title: the id */
    assert_true(gb_student_score(&back) == 10 && gb_student_max(&back) == 18);
    free(text);
    gb_student_free(&back);
    gb_student_free(&s);
}

static void test_results_rejects(void **state)
{
    (void)state;
    struct gb_student s;
    char err[256];
    gb_student_init(&s, "x");
    assert_int_equal(gb_results_from_json("[1,2]", &s, err, sizeof err), -1);
    assert_int_equal(gb_results_from_json("{\"tests\":[]}", &s, err, sizeof err), -1);
    assert_int_equal(gb_results_from_json("{\"extra_data\":{},\"tests\":[{\"score\":1}]}", &s,
                                          err, sizeof err), -1);
    assert_non_null(strstr(err, "test 1"));
    assert_int_equal(gb_results_from_json("{\"score\": 3", &s, err, sizeof err), -1);
    gb_student_free(&s);
}

static void test_csv_field(void **state)
{
    (void)state;
    struct strbuf b = { 0 };
    wb_csv(&b, "plain");
    sb_puts(&b, "|");
    wb_csv(&b, "a,b");
    sb_puts(&b, "|");
    wb_csv(&b, "say \"hi\"");
    sb_puts(&b, "|");
    wb_csv(&b, "=HYPERLINK(\"x\")");
    sb_puts(&b, "|");
    wb_csv(&b, "two\nlines");
    assert_string_equal(b.s, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"'=HYPERLINK(\"\"x\"\")\"|"
                                "\"two\nlines\"");
    free(b.s);
}

static void test_book_csv(void **state)
{
    (void)state;
    struct gb_book b;
    struct gb_student s;
    gb_book_init(&b);
    assert_int_equal(gb_book_add_column(&b, "01-a/one", "First", 10), 0);
    assert_int_equal(gb_book_add_column(&b, "01-a/two", "Second", 5), 0);
    assert_int_equal(gb_book_add_column(&b, "02-b/three", "Third", 3), 0);
    assert_int_equal(gb_book_add_column(&b, "02-b/four", "New task", 2), 0);
    make_student(&s, "alice");
    assert_int_equal(gb_book_add(&b, "alice", &s, "graded"), 0);
    assert_null(s.tasks);                 /* moved into the book */
    assert_int_equal(gb_book_add(&b, "bob,jr", NULL, "pending"), 0);
    assert_true(gb_row_total(&b, 0) == 10);
    assert_true(gb_row_max(&b, 0) == 20); /* four's max comes from the column */
    char *csv = gb_book_csv(&b);
    assert_string_equal(csv,
        "student,status,total,max,01-a/one,01-a/one outcome,01-a/two,01-a/two outcome,"
        "02-b/three,02-b/three outcome,02-b/four,02-b/four outcome\r\n"
        "alice,graded,10,20,10,passed,0,wrong,0,not_submitted,0,not_submitted\r\n"
        "\"bob,jr\",pending,,20,,,,,,,,\r\n");
    free(csv);

    char *xml = gb_book_junit(&b);
    /* no skipped on <testsuites>: junit-10 does not have it; the student's suite does */
    assert_non_null(strstr(xml, "<testsuites name=\"class\" tests=\"8\" failures=\"3\" "
                                "errors=\"0\" time=\"0.000\">"));
    assert_non_null(strstr(xml, "name=\"bob,jr\" id=\"1\" tests=\"4\" failures=\"0\" errors=\"0\" "
                                "skipped=\"4\""));
    assert_non_null(strstr(xml, "<failure type=\"wrong\" message=\"wrong: case 7\">wrong: case 7\n"
                                "  first mismatch &quot;x&quot;</failure>"));
    assert_non_null(strstr(xml, "<failure type=\"not_submitted\" message=\"not submitted\">"));
    assert_non_null(strstr(xml, "<testcase classname=\"alice\" name=\"01-a/one\" time=\"0.000\"/>"));
    free(xml);
    gb_book_free(&b);
}

static void test_junit_kinds(void **state)
{
    (void)state;
    struct gb_book b;
    struct gb_student s;
    gb_book_init(&b);
    const char *outcomes[] = { "crashed", "timed_out", "build_failed", "cuda_error",
                               "too_slow", "sanitizer", "skipped" };
    gb_student_init(&s, "c<&>");
    for (size_t i = 0; i < 7; i++) {
        char id[16];
        snprintf(id, sizeof id, "L/t%zu", i);
        gb_book_add_column(&b, id, id, 1);
        gb_student_add_task(&s, id, id, 0, 1, outcomes[i], "bell\a here", NULL);
    }
    gb_book_add(&b, "c<&>", &s, "graded");
    char *xml = gb_book_junit(&b);
    assert_non_null(strstr(xml, "tests=\"7\" failures=\"2\" errors=\"4\" skipped=\"1\""));
    assert_non_null(strstr(xml, "<testsuite name=\"c&lt;&amp;&gt;\""));
    assert_non_null(strstr(xml, "<error type=\"crashed\" message=\"bell here\""));
    assert_non_null(strstr(xml, "<skipped message=\"bell here\""));
    assert_null(strchr(xml, '\a'));       /* not allowed in XML 1.0, even escaped */
    free(xml);
    gb_book_free(&b);
}

static void test_utf8_clean(void **state)
{
    (void)state;
    size_t n;
    /* an invalid byte, a truncated sequence, an overlong '/', a surrogate, U+FFFF, a control */
    const char in[] = "a\xff" "b\xe2\x82" "c\xc0\xaf" "d\xed\xa0\x80" "e\xef\xbf\xbf" "f\x01g\t\r\n";
    char *out = utf8_clean(in, sizeof in - 1, &n);
    assert_string_equal(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd"
                             "d\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "e\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                             "fg\t\r\n");
    assert_int_equal(n, strlen(out));
    free(out);
    /* valid text, 2- 3- and 4-byte characters, goes through unchanged */
    const char ok[] = "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80";
    out = utf8_clean(ok, sizeof ok - 1, NULL);
    assert_string_equal(out, ok);
    free(out);
    /* XML drops what XML 1.0 forbids, CSV quotes what needs it; the result is clean */
    struct strbuf b = { 0 };
    wb_xml(&b, "x\x01\ry\xff<", (size_t)-1);
    char *xml = wb_take(&b);
    assert_string_equal(xml, "xy\xef\xbf\xbd&lt;");
    free(xml);
}

static void test_atomic_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_class_gb.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/out.csv", dir);
    assert_int_equal(write_atomic(path, "old\n", 4), 0);
    assert_int_equal(write_atomic(path, "new\n", 4), 0);
    char *text = read_text_file(path, 100);
    assert_string_equal(text, "new\n");
    free(text);
    /* no temporary file left behind */
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, 1);
    char bad[600];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x", dir);
    assert_int_equal(write_atomic(bad, "x", 1), -1);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_round_trip),
        cmocka_unit_test(test_results_rejects),
        cmocka_unit_test(test_csv_field),
        cmocka_unit_test(test_book_csv),
        cmocka_unit_test(test_junit_kinds),
        cmocka_unit_test(test_utf8_clean),
        cmocka_unit_test(test_atomic_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

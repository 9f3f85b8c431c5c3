// A demo's registry and what derives from it: --help, --list, the range check, the selection,
// the runs, the tables and the exit status.
#include "cmocka_all.h"
#include "lab.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The device header needs CUDA; here it only records that it was asked for.
static int header_calls, header_device;
static const char *header_title;
void lab_demo_header(int ordinal, const char *title, lab_device_info *info)
{
    header_calls++;
    header_device = ordinal;
    header_title = title;
    memset(info, 0, sizeof *info);
}

static int calls[8], n_calls;
static void record(int id) { calls[n_calls++] = id; }
static void fn_v1(void *arg) { (void)arg; record(1); }
static void fn_v2(void *arg) { (void)arg; record(2); }
static void fn_v3(void *arg) { *(int *)arg += 1; record(3); }

// An entry type of a demo that keeps more per version: the registry is its first member.
typedef struct wide_version {
    lab_demo_version v;
    double extra[5];
} wide_version;

static const wide_version versions[] = {
    {{1, "first", "the first version", fn_v1}, {0}},
    {{2, "second", "the second version, a longer one", fn_v2}, {0}},
    {{3, "third", "the third", fn_v3}, {0}},
};

static lab_demo make_demo(void)
{
    lab_demo d;
    memset(&d, 0, sizeof d);
    d.lesson = "00-test";
    d.title = "Lesson 00: a test demo";
    d.versions = (const lab_demo_version *)(const void *)versions;
    d.n_versions = sizeof versions / sizeof *versions;
    d.stride = sizeof *versions;
    return d;
}

// stdout and stderr into out and err, from capture_begin to capture_end.
static char out[4096], err[4096];
typedef struct capture { int saved[2], file[2]; } capture;

static void capture_begin(capture *c)
{
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < 2; k++) {
        char path[] = "/tmp/labdemoXXXXXX";
        c->file[k] = mkstemp(path);
        assert_true(c->file[k] >= 0);
        unlink(path);
        c->saved[k] = dup(1 + k);
        dup2(c->file[k], 1 + k);
    }
}

static void capture_end(capture *c)
{
    fflush(stdout);
    fflush(stderr);
    char *bufs[2] = {out, err};
    for (int k = 0; k < 2; k++) {
        dup2(c->saved[k], 1 + k);
        close(c->saved[k]);
        lseek(c->file[k], 0, SEEK_SET);
        const ssize_t n = read(c->file[k], bufs[k], sizeof out - 1);
        bufs[k][n > 0 ? n : 0] = 0;
        close(c->file[k]);
    }
}

static int parse(lab_demo *d, int argc, const char *const *args)
{
    char *argv[16];
    for (int i = 0; i < argc; i++)
        argv[i] = (char *)args[i];
    capture c;
    capture_begin(&c);
    const int rc = lab_demo_parse(d, argc, argv);
    capture_end(&c);
    return rc;
}

// A fresh demo after lab_demo_parse(args), which must have returned rc.
static lab_demo parsed(int argc, const char *const *args, int rc)
{
    lab_demo d = make_demo();
    assert_int_equal(parse(&d, argc, args), rc);
    return d;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void help_lists_every_version(void **state)
{
    (void)state;
    const char *args[] = {"demo", "--help"};
    lab_demo d = parsed(2, args, 0);
    assert_int_equal(d.status, LAB_EXIT_PASS);
    assert_non_null(strstr(out, "Lesson 00: a test demo\n"));
    assert_non_null(strstr(out, "[VERSION...]"));
    // aligned: the names padded to the longest, the descriptions in one column
    assert_non_null(strstr(out, "\n  1  first   the first version\n"));
    assert_non_null(strstr(out, "\n  2  second  the second version, a longer one\n"));
    assert_non_null(strstr(out, "\n  3  third   the third\n"));
    assert_string_equal(err, "");
}

static void list_is_one_line_per_version(void **state)
{
    (void)state;
    const char *args[] = {"demo", "--list"};
    lab_demo d = parsed(2, args, 0);
    assert_int_equal(d.status, LAB_EXIT_PASS);
    assert_string_equal(out, "1\tfirst\tthe first version\n"
                             "2\tsecond\tthe second version, a longer one\n"
                             "3\tthird\tthe third\n");
}

static void unknown_version_is_one_error_line(void **state)
{
    (void)state;
    const char *bad[] = {"0", "4", "99"};
    for (size_t i = 0; i < 3; i++) {
        const char *args[] = {"demo", "2", bad[i]};
        lab_demo d = parsed(3, args, 0);
        assert_int_equal(d.status, LAB_EXIT_USAGE);
        assert_int_equal(count_lines(err), 1);
        assert_non_null(strstr(err, "versions 1..3"));
        assert_string_equal(out, "");
    }
    // a bad version is refused even with --list
    const char *args[] = {"demo", "--list", "7"};
    lab_demo d = parsed(3, args, 0);
    assert_int_equal(d.status, LAB_EXIT_USAGE);
}

static void bad_option_is_a_usage_error(void **state)
{
    (void)state;
    const char *args[] = {"demo", "--no-such-option"};
    lab_demo d = parsed(2, args, 0);
    assert_int_equal(d.status, LAB_EXIT_USAGE);
    assert_int_equal(count_lines(err), 1);
}

static void selection(void **state)
{
    (void)state;
    lab_demo d = make_demo();
    const char *all[] = {"demo"};
    assert_int_equal(parse(&d, 1, all), 1);
    for (int id = 1; id <= 3; id++)
        assert_true(lab_demo_selected(&d, id));
    const char *some[] = {"demo", "3", "1", "3"};
    assert_int_equal(parse(&d, 4, some), 1);
    assert_true(lab_demo_selected(&d, 1));
    assert_false(lab_demo_selected(&d, 2));
    assert_true(lab_demo_selected(&d, 3));
    assert_int_equal(lab_demo_version_at(&d, 2)->id, 3);
    assert_string_equal(lab_demo_version_at(&d, 1)->name, "second");
}

static void run_calls_the_selected_in_order(void **state)
{
    (void)state;
    const char *args[] = {"demo", "3", "1"};
    lab_demo d = parsed(3, args, 1);
    n_calls = 0;
    int arg = 0;
    lab_demo_run(&d, &arg);
    assert_int_equal(n_calls, 2);
    assert_int_equal(calls[0], 1);
    assert_int_equal(calls[1], 3);
    assert_int_equal(arg, 1); // the argument reaches the version
}

static void start_prints_the_header(void **state)
{
    (void)state;
    lab_demo d = make_demo();
    char a0[] = "demo", a1[] = "--device", a2[] = "2";
    char *argv[] = {a0, a1, a2};
    header_calls = 0;
    assert_int_equal(lab_demo_start(&d, 3, argv), 1);
    assert_int_equal(header_calls, 1);
    assert_int_equal(header_device, 2);
    assert_string_equal(header_title, "Lesson 00: a test demo");
    char b1[] = "--list";
    char *list[] = {a0, b1};
    capture c;
    capture_begin(&c);
    const int rc = lab_demo_start(&d, 2, list);
    capture_end(&c);
    assert_int_equal(rc, 0);
    assert_int_equal(count_lines(out), 3);
    assert_int_equal(header_calls, 1); // --list needs no device
}

static void broken_registries_are_refused(void **state)
{
    (void)state;
    static const lab_demo_version gap[] = {{0, "a", "x", fn_v1}, {2, "b", "y", fn_v2}};
    static const lab_demo_version blank[] = {{1, "two words", "x", fn_v1}};
    static const lab_demo_version lines[] = {{1, "a", "two\nlines", fn_v1}};
    static const lab_demo_version nofn[] = {{1, "a", "x", NULL}};
    const lab_demo_version *tables[] = {gap, blank, lines, nofn};
    const size_t sizes[] = {2, 1, 1, 1};
    for (size_t i = 0; i < 4; i++) {
        lab_demo d = make_demo();
        d.versions = tables[i];
        d.n_versions = sizes[i];
        d.stride = sizeof(lab_demo_version);
        const char *args[] = {"demo", "--help"};
        assert_int_equal(parse(&d, 2, args), 0);
        assert_int_equal(d.status, LAB_EXIT_USAGE);
        assert_non_null(strstr(err, "demo registry"));
        assert_string_equal(out, "");
    }
}

static void goals_are_reported_not_failed(void **state)
{
    (void)state;
    char dir[] = "/tmp/lab_goalsXXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *args[] = {"demo", "--csv", dir};
    lab_demo d = parsed(3, args, 1);
    capture c;
    capture_begin(&c);
    lab_demo_goal(&d, "time against cuBLAS", 1.05, 1.10, "ms", 1); // lower is better: met
    lab_demo_goal(&d, "share of the copy", 0.80, 0.95, "", 0);      // higher is better: not met
    lab_demo_goal(&d, "rungs that fall back", 0, 0, "rungs", 1);    // a count of 0, met exactly
    capture_end(&c);
    assert_non_null(strstr(out, "goal  rungs that fall back: 0 rungs, goal <= 0 rungs (ratio 1.00): met"));
    assert_non_null(strstr(out, "goal  time against cuBLAS: 1.05 ms, goal <= 1.1 ms (ratio 1.05): met"));
    assert_non_null(strstr(out, "goal  share of the copy: 0.8 , goal >= 0.95  (ratio 0.84): NOT met"));
    assert_int_equal(d.status, LAB_EXIT_PASS); // a missed goal is a measurement, not a failure
    char path[256], line[256];
    snprintf(path, sizeof path, "%s/%s_goals.csv", dir, d.lesson);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int rows = 0, met = 0;
    while (fgets(line, sizeof line, f))
        rows++, met += strstr(line, ",1\n") != NULL;
    fclose(f);
    remove(path);
    rmdir(dir);
    assert_int_equal(rows, 4); // the header and one row per goal
    assert_int_equal(met, 2);
}

static void emit_and_status(void **state)
{
    (void)state;
    const char *args[] = {"demo", "--csv", "/dev/null/cannot"};
    lab_demo d = parsed(3, args, 1);
    static const char *const cols[] = {"a"};
    // a table without rows is dropped without a word and costs nothing
    lab_demo_emit(&d, lab_table_new("empty", cols, 1), "empty");
    assert_int_equal(d.status, LAB_EXIT_PASS);
    lab_table *t = lab_table_new("one row", cols, 1);
    lab_table_rowf(t, "%d", 1);
    capture c;
    capture_begin(&c);
    lab_demo_emit(&d, t, "one");
    capture_end(&c);
    assert_non_null(strstr(out, "one row"));    // printed all the same
    assert_int_equal(count_lines(err), 1);      // the CSV failure, said once
    assert_int_equal(d.status, LAB_EXIT_USAGE); // and in the exit status
    lab_demo_fail(&d, LAB_EXIT_FAIL);
    assert_int_equal(d.status, LAB_EXIT_USAGE); // the first problem is the one reported
    lab_demo e = make_demo();
    lab_demo_fail(&e, LAB_EXIT_FAIL);
    assert_int_equal(e.status, LAB_EXIT_FAIL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_lists_every_version),
        cmocka_unit_test(list_is_one_line_per_version),
        cmocka_unit_test(unknown_version_is_one_error_line),
        cmocka_unit_test(bad_option_is_a_usage_error),
        cmocka_unit_test(selection),
        cmocka_unit_test(run_calls_the_selected_in_order),
        cmocka_unit_test(start_prints_the_header),
        cmocka_unit_test(broken_registries_are_refused),
        cmocka_unit_test(emit_and_status),
        cmocka_unit_test(goals_are_reported_not_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

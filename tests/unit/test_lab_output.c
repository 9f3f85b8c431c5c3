// What the lab writes: numbers, tables and CSV, TAP reports, dumps; and the timing summary.
#include "cmocka_all.h"
#include "lab.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/labunitXXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void numbers(void **state)
{
    (void)state;
    char b[32];
    lab_fmt_rate(51484.0, "GFLOP/s", b, sizeof b);
    assert_string_equal(b, "51.5 TFLOP/s");
    lab_fmt_rate(987.0, "GB/s", b, sizeof b);
    assert_string_equal(b, "987 GB/s");
    lab_fmt_ms(0.0123, b, sizeof b);
    assert_string_equal(b, "12.3 us");
    lab_fmt_ms(23.1, b, sizeof b);
    assert_string_equal(b, "23.1 ms");
    lab_fmt_ms(2170, b, sizeof b);
    assert_string_equal(b, "2.17 s");
    lab_fmt_pct(0.875, b, sizeof b);
    assert_string_equal(b, "87.5%");
}

static void timing_summary(void **state)
{
    (void)state;
    double ms[] = {5, 1, 4, 2, 3};
    lab_timing t = lab_timing_summarize(ms, 5);
    assert_true(t.median_ms == 3 && t.min_ms == 1 && t.max_ms == 5 && t.mean_ms == 3);
    assert_int_equal(t.reps, 5);
    double even[] = {4, 1, 3, 2};
    assert_true(lab_median(even, 4) == 2.5);
}

static void table_prints_aligned_and_writes_csv(void **state)
{
    (void)state;
    const char *cols[] = {"n", "name", "GFLOP/s"};
    lab_table *t = lab_table_new("title", cols, 3);
    lab_table_rowf(t, "%d|%s|%.1f", 1024, "naive, \"cols\"", 6745.0);
    lab_table_rowf(t, "%d|%s|%.1f", 8, "x", 5.5);
    assert_int_equal(lab_table_rows(t), 2);
    assert_string_equal(lab_table_cell(t, 1, 2), "5.5");
    assert_null(lab_table_cell(t, 2, 0));
    char path[128];
    snprintf(path, sizeof path, "%s/table.txt", tmpdir);
    FILE *f = fopen(path, "w");
    lab_table_print(t, f);
    fclose(f);
    const char *txt = slurp(path);
    // Numbers are right-aligned under their header: "5.5" ends where "6745.0" ends.
    assert_non_null(strstr(txt, "6745.0\n"));
    assert_non_null(strstr(txt, "     5.5\n"));
    assert_int_equal(lab_table_write_csv(t, tmpdir, "t"), 0);
    snprintf(path, sizeof path, "%s/t.csv", tmpdir);
    assert_string_equal(slurp(path), "n,name,GFLOP/s\n1024,\"naive, \"\"cols\"\"\",6745.0\n8,x,5.5\n");
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int emitted = lab_table_emit(t, tmpdir, "emitted"); // prints, writes the CSV, frees t
    fclose(stdout);
    stdout = saved;
    assert_int_equal(emitted, 0);
    snprintf(path, sizeof path, "%s/emitted.csv", tmpdir);
    assert_non_null(strstr(slurp(path), "8,x,5.5\n"));
    char cell[LAB_CSV_CELL_MAX(16)];
    assert_int_equal(lab_csv_cell("-0.5", 0, cell), 4);      /* a number stays one */
    assert_string_equal(cell, "-0.5");
    lab_csv_cell("=1+1", 1, cell);                           /* a formula shows as text */
    assert_string_equal(cell, "\"'=1+1\"");
    lab_csv_cell("a\rb", 0, cell);
    assert_string_equal(cell, "\"a\rb\"");
    lab_csv_cell("\"\"", 1, cell);
    assert_string_equal(cell, "\"\"\"\"\"\"");
}

static void report_is_tap13_with_yaml(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/r.tap", tmpdir);
    lab_report *r = lab_report_open(path, "prog", "task", 9, 0);
    assert_non_null(r);
    lab_case_result c;
    memset(&c, 0, sizeof c);
    c.name = "ok-case";
    c.status = LAB_PASS;
    c.timing = (lab_timing){1.5, 1, 2, 1.5, 3};
    c.unit = "GB/s";
    c.throughput = 10;
    c.floor_ms = 0.25;
    c.reps_checked = 2;
    lab_report_case(r, &c);
    c.floor_ms = 0;
    c.reps_checked = 0;
    c.name = "bad-case";
    c.status = LAB_FAIL;
    c.timing.reps = 0;
    c.cols = 10;
    lab_compare_init(&c.cmp);
    lab_compare_one(&c.cmp, 12, 1.0, 2.0, 1.0, (lab_tolerance){0, 0});
    lab_compare_fail(&c.cmp, "say \"why\"");
    lab_report_case(r, &c);
    assert_int_equal(lab_report_close(r), 0);
    const char *tap = slurp(path);
    assert_non_null(strstr(tap, "TAP version 13\n# program: prog\n# task: task\n# seed: 9\n"));
    assert_non_null(strstr(tap, "ok 1 - ok-case\n  ---\n  status: pass\n  time_ms: 1.5\n"));
    assert_non_null(strstr(tap, "  unit: GB/s\n  floor_ms: 0.25\n  reps_checked: 2\n"));
    assert_non_null(strstr(tap, "not ok 2 - bad-case\n  ---\n  status: fail\n  checked"));
    assert_non_null(strstr(tap, "  first_mismatch: \"[12] (row 1, col 2) expected 1 got 2\"\n"));
    assert_non_null(strstr(tap, "  note: \"say \\\"why\\\"\"\n"));
    assert_non_null(strstr(tap, "1..2\n")); // plan written at the end when not known first
}

// A report whose every case passed is a passing file to Perl's prove (it fails "TAP version 14").
static void report_passes_prove(void **state)
{
    (void)state;
    if (system("command -v prove >/dev/null 2>&1") != 0)
        skip();
    char path[128], cmd[256];
    snprintf(path, sizeof path, "%s/p.tap", tmpdir);
    lab_report *r = lab_report_open(path, "prog", "task", 9, 1);
    assert_non_null(r);
    lab_case_result c;
    memset(&c, 0, sizeof c);
    c.name = "ok-case";
    c.status = LAB_PASS;
    c.timing = (lab_timing){1.5, 1, 2, 1.5, 3};
    lab_report_case(r, &c);
    assert_int_equal(lab_report_close(r), 0);
    snprintf(cmd, sizeof cmd, "prove --exec cat %s >/dev/null 2>&1", path);
    assert_int_equal(system(cmd), 0);
}

static void dump_round_trip_and_mismatches(void **state)
{
    (void)state;
    float data[4] = {1, 2, 3, 4}, back[4] = {0};
    lab_buffer b = {"C", LAB_F32, 4, data};
    char err[512];
    assert_int_equal(lab_dump_write(tmpdir, "t", "c1", 3, 5, &b, err, sizeof err), 0);
    assert_true(lab_dump_exists(tmpdir, "c1", 3, "C"));
    assert_false(lab_dump_exists(tmpdir, "c1", 0, "C"));
    char path[256];
    snprintf(path, sizeof path, "%s/c1.rep3.C.bin", tmpdir);
    assert_non_null(strstr(slurp(path), "LABDUMP 2 task=t case=c1 rep=3 buffer=C seed=5 type=f32 count=4\n"));
    lab_buffer in = {"C", LAB_F32, 4, back};
    assert_int_equal(lab_dump_read(tmpdir, "t", "c1", 3, 5, &in, err, sizeof err), 0);
    assert_memory_equal(data, back, sizeof data);
    assert_int_equal(lab_dump_read(tmpdir, "t", "c1", 3, 6, &in, err, sizeof err), -1); // other seed
    assert_non_null(strstr(err, "does not match"));
    assert_int_equal(lab_dump_read(tmpdir, "t", "c2", 3, 5, &in, err, sizeof err), -1); // no file
    assert_non_null(strstr(err, "no output dumped for case c2, repetition 3"));
    // Another repetition's file with this one's name: its header says which it is.
    snprintf(path, sizeof path, "%s/c1.rep3.C.bin", tmpdir);
    char moved[256];
    snprintf(moved, sizeof moved, "%s/c1.rep1.C.bin", tmpdir);
    assert_int_equal(rename(path, moved), 0);
    assert_int_equal(lab_dump_read(tmpdir, "t", "c1", 1, 5, &in, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not match"));
    lab_buffer shorter = {"C", LAB_F32, 3, back};
    assert_int_equal(lab_dump_write(tmpdir, "t", "c1", 0, 5, &b, err, sizeof err), 0);
    assert_int_equal(lab_dump_read(tmpdir, "t", "c1", 0, 5, &shorter, err, sizeof err), -1);
    // A repetition the harness refused to dump: reading it fails with the harness's reason.
    assert_int_equal(lab_dump_write_void(tmpdir, "c1", 2, "C", "output 'C' was changed", err,
                                         sizeof err), 0);
    assert_true(lab_dump_exists(tmpdir, "c1", 2, NULL));
    assert_int_equal(lab_dump_read(tmpdir, "t", "c1", 2, 5, &in, err, sizeof err), -1);
    assert_string_equal(err, "output 'C' was changed");
    assert_int_equal(lab_dtype_size(LAB_F64), 8);
    assert_string_equal(lab_dtype_name(LAB_U8), "u8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers),
        cmocka_unit_test(timing_summary),
        cmocka_unit_test(table_prints_aligned_and_writes_csv),
        cmocka_unit_test(report_is_tap13_with_yaml),
        cmocka_unit_test(report_passes_prove),
        cmocka_unit_test(dump_round_trip_and_mismatches),
    };
    return cmocka_run_group_tests_name("lab output", tests, setup, teardown);
}

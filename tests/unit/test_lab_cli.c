// The shared command line: defaults, every option, and the errors that mean exit status 2.
#include "cmocka_all.h"
#include "lab.h"

#include <stdio.h>

static int parse(lab_options *o, int argc, char **argv)
{
    return lab_cli_parse(argc, argv, "test", NULL, o);
}

static void defaults(void **state)
{
    (void)state;
    lab_options o;
    char *argv[] = {"prog"};
    assert_int_equal(parse(&o, 1, argv), 0);
    assert_int_equal(o.seed, 1);
    assert_false(o.has_check_seed);
    assert_int_equal(o.reps, -1);
    assert_int_equal(o.warmup, -1);
    assert_true(o.rtol < 0 && o.atol < 0);
    assert_null(o.report);
    assert_false(o.keep_on_host);
    assert_int_equal(o.n_cases, 0);
    assert_true(lab_cli_case_selected(&o, "anything"));
}

static void every_option(void **state)
{
    (void)state;
    lab_options o;
    char a[][40] = {"prog", "--seed", "123", "--reps=7", "--warmup", "0", "--case", "a,b", "--case=c",
                    "--report", "r.tap", "--dump", "d", "--rtol", "1e-3", "--device", "2",
                    "--flush-l2", "--quick", "--list", "3", "1", "--csv", "out", "--keep-on-host",
                    "--check-seed=18446744073709551615"};
    char *argv[sizeof a / sizeof *a];
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        argv[i] = a[i];
    assert_int_equal(parse(&o, (int)(sizeof a / sizeof *a), argv), 0);
    assert_int_equal(o.seed, 123);
    assert_true(o.has_check_seed && o.check_seed == UINT64_MAX);
    assert_int_equal(o.reps, 7);
    assert_int_equal(o.warmup, 0);
    assert_int_equal(o.n_cases, 3);
    assert_true(lab_cli_case_selected(&o, "b"));
    assert_true(lab_cli_case_selected(&o, "c"));
    assert_false(lab_cli_case_selected(&o, "d"));
    assert_string_equal(o.report, "r.tap");
    assert_string_equal(o.dump_dir, "d");
    assert_string_equal(o.csv_dir, "out");
    assert_true(o.rtol == 1e-3);
    assert_int_equal(o.device, 2);
    assert_true(o.flush_l2 && o.quick && o.list && o.keep_on_host);
    assert_false(o.all_sizes);
    assert_int_equal(o.n_positional, 2);
    assert_int_equal(o.positional[0], 3);
    assert_int_equal(o.positional[1], 1);
}

static void all_sizes(void **state)
{
    (void)state;
    lab_options o;
    char *argv[] = {"prog", "--all-sizes", "2"};
    assert_int_equal(parse(&o, 3, argv), 0);
    assert_true(o.all_sizes && !o.quick);
    assert_int_equal(o.n_positional, 1);
}

static void errors(void **state)
{
    (void)state;
    static const char *const bad[][3] = {
        {"prog", "--nope", NULL},  {"prog", "--reps", "0"},   {"prog", "--reps", "x"},
        {"prog", "--seed", "-1"},  {"prog", "--rtol", "-2"},  {"prog", "--report", NULL},
        {"prog", "banana", NULL},  {"prog", "--dump=", NULL}, {"prog", "--warmup", "3x"},
        {"prog", "--check-seed", "-3"}, {"prog", "--check-seed", "x"}, {"prog", "--check-seed", NULL},
        {"prog", "--quick", "--all-sizes"},
    };
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w"); // the one-line messages are not this test's business
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lab_options o;
        char *argv[3] = {(char *)bad[i][0], (char *)bad[i][1], (char *)bad[i][2]};
        int argc = bad[i][2] ? 3 : 2;
        assert_int_equal(parse(&o, argc, argv), -1);
    }
    fclose(stderr);
    stderr = saved;
}

static void help(void **state)
{
    (void)state;
    lab_options o;
    char *argv[] = {"prog", "--help"};
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    int rc = parse(&o, 2, argv);
    fclose(stdout);
    stdout = saved;
    assert_int_equal(rc, 1);
    assert_true(o.help);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(every_option),
        cmocka_unit_test(all_sizes),
        cmocka_unit_test(errors),
        cmocka_unit_test(help),
    };
    return cmocka_run_group_tests_name("lab cli", tests, NULL, NULL);
}

/* A student's grading through Slurm (remote.h): the flags, grader.ini's [slurm] under them,
 * the choice between here and Slurm, and the job's status line. The job itself runs against a
 * real cluster in tests/class/test_student_slurm.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "remote.h"

/* A course root holding grader.ini with text; malloc'd path. */
static char *course_with(const char *text)
{
    char tmpl[] = "/tmp/test_remote.XXXXXX";
    char *dir = mkdtemp(tmpl) ? strdup(tmpl) : NULL;
    assert_non_null(dir);
    char *ini = path_join(dir, "grader.ini");
    assert_int_equal(write_atomic(ini, text, strlen(text)), 0);
    free(ini);
    return dir;
}

static void test_flags(void **state)
{
    (void)state;
    struct remote_flags f = { 0 };
    char err[160] = "";
    assert_int_equal(remote_flag(&f, REMOTE_OPT_SLURM, NULL, err, sizeof err), 0);
    assert_int_equal(f.use, 1);
    assert_int_equal(remote_flag(&f, REMOTE_OPT_PARTITION, "gpu", err, sizeof err), 0);
    assert_string_equal(f.partition, "gpu");
    assert_int_equal(remote_flag(&f, REMOTE_OPT_QUEUE_LIMIT, "90", err, sizeof err), 0);
    assert_true(f.queue_limit_s == 90);
    assert_int_equal(remote_flag(&f, REMOTE_OPT_QUEUE_LIMIT, "0", err, sizeof err), -1);
    assert_non_null(strstr(err, "--slurm-queue-limit wants seconds"));
    assert_int_equal(remote_flag(&f, REMOTE_OPT_QUEUE_LIMIT, "1e99", err, sizeof err), -1);
    assert_int_equal(remote_flag(&f, REMOTE_OPT_NO_SLURM, NULL, err, sizeof err), 0);
    assert_int_equal(f.use, -1);
}

/* enabled = no and no flag: here, whatever else the file says */
static void test_file_read_flags_over_it(void **state)
{
    (void)state;
    char *root = course_with("[course]\nother = 1\n[slurm]\nenabled = no\npartition = gpu\n"
                             "time = 20\naccount = cs\nqueue_limit = 45\narch = sm_80\n");
    struct remote_flags f = { .partition = "debug" };
    struct remote_target rt;
    char err[512] = "";
    assert_int_equal(remote_setup(&rt, &f, root, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_string_equal(rt.sl.partition, "debug");
    assert_string_equal(rt.sl.time, "20");
    assert_string_equal(rt.sl.account, "cs");
    assert_string_equal(rt.sl.gres, "gpu:1");
    assert_string_equal(rt.arch, "sm_80");
    assert_true(rt.queue_limit_s == 45);
    assert_int_equal(rt.enabled, REMOTE_NO);
    remote_target_free(&rt);
    remove_tree(root);
    free(root);
}

static void expect_file_error(const char *text, const char *want)
{
    char *root = course_with(text);
    struct remote_flags f = { .use = 1 };
    struct remote_target rt;
    char err[512] = "";
    assert_int_equal(remote_setup(&rt, &f, root, err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("'%s' not in '%s'", want, err);
    remote_target_free(&rt);
    remove_tree(root);
    free(root);
}

static void test_file_errors(void **state)
{
    (void)state;
    expect_file_error("[slurm]\npartition = gpu\nqueue = 5\n",
                      "grader.ini:3: unknown key 'queue' in [slurm]");
    expect_file_error("[slurm]\nenabled = maybe\n", "grader.ini:2: [slurm] enabled wants yes");
    expect_file_error("[slurm]\nqueue_limit = -3\n", "grader.ini:2: [slurm] queue_limit wants");
    expect_file_error("[slurm]\npartition = a b\n", "grader.ini:2: [slurm] partition wants one");
}

/* --slurm where Slurm's commands are not on PATH: one line, no job */
static void test_no_sbatch(void **state)
{
    (void)state;
    char *root = course_with("[slurm]\nenabled = yes\n");
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    struct remote_flags f = { 0 };
    struct remote_target rt;
    char err[512] = "";
    int rc = remote_setup(&rt, &f, root, err, sizeof err);
    if (path)
        setenv("PATH", path, 1);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "Slurm grading (grader.ini: [slurm] enabled = yes) needs "
                                "sbatch, squeue and scancel, and sbatch is not on PATH"));
    remote_target_free(&rt);
    f.use = -1; /* --no-slurm: grader.ini is not even read */
    assert_int_equal(remote_setup(&rt, &f, root, err, sizeof err), 0);
    remote_target_free(&rt);
    free(path);
    remove_tree(root);
    free(root);
}

static void test_status_line(void **state)
{
    (void)state;
    struct remote_job_state s = { .id = "12", .state = "PENDING", .reason = "Priority" };
    char line[256];
    remote_status_line(&s, 12.4, 0, line, sizeof line);
    assert_string_equal(line, "job 12 queued 12 s (Priority)");
    snprintf(s.state, sizeof s.state, "RUNNING");
    snprintf(s.node, sizeof s.node, "gpu-03");
    remote_status_line(&s, 30, 40.2, line, sizeof line);
    assert_string_equal(line, "job 12 running on gpu-03 for 40 s");
    snprintf(s.state, sizeof s.state, "done");
    remote_status_line(&s, 0, 0, line, sizeof line);
    assert_string_equal(line, "job 12 done on gpu-03");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_file_read_flags_over_it),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_no_sbatch),
        cmocka_unit_test(test_status_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

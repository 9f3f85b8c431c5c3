/* Unit tests of the bounded runner (grader/runner.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"

static struct run_result run_sh(const char *script, const char *out, double wall, size_t cap)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    struct run_spec s = {.argv = argv, .stdout_path = out, .stderr_path = out, .wall_s = wall,
                         .output_cap = cap, .max_procs = 16, .flood_bytes = 8u << 20};
    struct run_result r;
    assert_int_equal(run_sandboxed(&s, &r), 0);
    return r;
}

static void exit_status_and_merged_output(void **state)
{
    (void)state;
    char out[] = "/tmp/grader-run-XXXXXX";
    close(mkstemp(out));
    struct run_result r = run_sh("echo one; echo two >&2; exit 7", out, 10, 0);
    assert_int_equal(r.end, RUN_EXITED);
    assert_int_equal(r.exit_status, 7);
    FILE *f = fopen(out, "r");
    char buf[64] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_non_null(strstr(buf, "one"));
    assert_non_null(strstr(buf, "two"));
    unlink(out);
}

static void signals_timeouts_floods_and_forks(void **state)
{
    (void)state;
    struct run_result r = run_sh("kill -SEGV $$", NULL, 10, 0);
    assert_int_equal(r.end, RUN_SIGNALED);
    assert_int_equal(r.term_signal, SIGSEGV);
    r = run_sh("sleep 30", NULL, 0.5, 0);
    assert_int_equal(r.end, RUN_TIMED_OUT);
    assert_true(r.wall_s < 5);
    r = run_sh("yes flood", NULL, 20, 0);
    assert_int_equal(r.end, RUN_FLOODED);
    r = run_sh("while :; do sleep 30 & done", NULL, 20, 0);
    assert_int_equal(r.end, RUN_FORKED);
}

static void output_is_capped(void **state)
{
    (void)state;
    char out[] = "/tmp/grader-run-XXXXXX";
    close(mkstemp(out));
    struct run_result r = run_sh("head -c 100000 /dev/zero", out, 10, 1000);
    assert_int_equal(r.end, RUN_EXITED);
    assert_true(r.truncated);
    struct stat st;
    stat(out, &st);
    assert_true(st.st_size < 1100);
    unlink(out);
}

static void grandchildren_are_killed(void **state)
{
    (void)state;
    char pidfile[] = "/tmp/grader-run-XXXXXX";
    close(mkstemp(pidfile));
    char script[256];
    snprintf(script, sizeof script, "sleep 60 & echo $! > %s; exit 0", pidfile);
    struct run_result r = run_sh(script, NULL, 10, 0);
    assert_int_equal(r.end, RUN_EXITED);
    FILE *f = fopen(pidfile, "r");
    int pid = 0;
    assert_int_equal(fscanf(f, "%d", &pid), 1);
    fclose(f);
    usleep(100000);
    /* Gone, or a zombie waiting for its new parent to reap it: either way not running. */
    char path[64], buf[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        const char *p = strrchr(buf, ')');
        assert_non_null(p);
        assert_true(p[2] == 'Z' || p[2] == 'X');
    }
    unlink(pidfile);
}

static void spawn_failure_and_description(void **state)
{
    (void)state;
    char *argv[] = {"/nonexistent/program", NULL};
    struct run_spec s = {.argv = argv};
    struct run_result r;
    run_sandboxed(&s, &r);
    assert_int_equal(r.end, RUN_SPAWN_FAILED);
    char buf[256];
    run_describe(&s, &r, buf, sizeof buf);
    assert_non_null(strstr(buf, "could not run /nonexistent/program"));
    r = (struct run_result){.end = RUN_SIGNALED, .term_signal = SIGSEGV};
    run_describe(&s, &r, buf, sizeof buf);
    assert_string_equal(buf, "killed by SIGSEGV (Segmentation fault)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_status_and_merged_output),
        cmocka_unit_test(signals_timeouts_floods_and_forks),
        cmocka_unit_test(output_is_capped),
        cmocka_unit_test(grandchildren_are_killed),
        cmocka_unit_test(spawn_failure_and_description),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

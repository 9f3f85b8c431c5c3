/* util.h: the string buffer, running a tool for its output, the stop signals; fs.h: a
 * directory that cannot be written. */
#include "cmocka_all.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "util.h"

static void test_strbuf(void **state)
{
    (void)state;
    struct strbuf b = { 0 };
    char *empty = sb_take(&b);
    assert_string_equal(empty, "");
    free(empty);
    sb_puts(&b, "ab");
    sb_add(&b, "cdef", 2);
    sb_printf(&b, "-%d-", 42);
    for (int i = 0; i < 100; i++)   /* past the first allocations */
        sb_puts(&b, "x");
    assert_int_equal(b.len, 8 + 100);
    char *s = sb_take(&b);
    assert_int_equal(strncmp(s, "abcd-42-x", 9), 0);
    assert_int_equal(strlen(s), 108);
    assert_null(b.s);
    assert_int_equal(b.len, 0);
    free(s);
}

/* A ratio far below 1 keeps its digits: "0.002", never "0.00". */
static void test_ratio_text(void **state)
{
    (void)state;
    char b[24];
    assert_string_equal(ratio_text(0.83, b, sizeof b), "0.83");
    assert_string_equal(ratio_text(1.0, b, sizeof b), "1.00");
    assert_string_equal(ratio_text(0.1, b, sizeof b), "0.10");
    assert_string_equal(ratio_text(0.0456, b, sizeof b), "0.046");
    assert_string_equal(ratio_text(0.00203, b, sizeof b), "0.002");
    assert_string_equal(ratio_text(0, b, sizeof b), "0.00");
}

static void test_run_capture(void **state)
{
    (void)state;
    char *out;
    size_t len;
    char *both[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
    assert_int_equal(run_capture(both, 1, 100, &out, &len), 3);
    assert_string_equal(out, "out\nerr\n");
    assert_int_equal(len, 8);
    free(out);
    assert_int_equal(run_capture(both, 0, 100, &out, NULL), 3);
    assert_string_equal(out, "out\n");   /* stderr discarded */
    free(out);
    /* more than max: cut at max, the rest drained (the tool ends instead of blocking) */
    char *big[] = { "sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' x; echo done >&2", NULL };
    assert_int_equal(run_capture(big, 0, 10, &out, &len), 0);
    assert_string_equal(out, "xxxxxxxxxx");
    assert_int_equal(len, 10);
    free(out);
    char *stdin_null[] = { "cat", NULL };   /* stdin is /dev/null: cat ends at once */
    assert_int_equal(run_capture(stdin_null, 1, 100, &out, &len), 0);
    assert_int_equal(len, 0);
    free(out);
    char *missing[] = { "no-such-tool-anywhere", NULL };
    assert_int_equal(run_capture(missing, 1, 100, &out, NULL), -1);
    assert_null(out);
}

static volatile sig_atomic_t stop;

static void test_stop_signals(void **state)
{
    (void)state;
    catch_stop_signals(&stop);
    raise(SIGTERM);
    assert_int_equal(stop, 1);
    stop = 0;
    raise(SIGINT);
    assert_int_equal(stop, 1);
    stop = 0;
    /* no SA_RESTART: a blocking read ends with EINTR instead of going on */
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    struct sigaction sa = { 0 };
    sigaction(SIGTERM, NULL, &sa);
    sigaction(SIGALRM, &sa, NULL);   /* the same handler and flags, sent by the alarm */
    alarm(1);
    char c;
    assert_int_equal(read(fd[0], &c, 1), -1);
    assert_int_equal(errno, EINTR);
    assert_int_equal(stop, 1);
    close(fd[0]);
    close(fd[1]);
}

static void test_dir_unwritable(void **state)
{
    (void)state;
    char top[] = "/tmp/unwritable-XXXXXX";
    assert_non_null(mkdtemp(top));
    char *deep = xasprintf("%s/a/b", top);
    assert_null(dir_unwritable(deep));            /* made, and a file can be made in it */
    assert_true(is_dir(deep));
    char *file = xasprintf("%s/file", top);
    assert_int_equal(write_atomic(file, "x", 1), 0);
    char *under = xasprintf("%s/sub/dir", file);
    char *bad = dir_unwritable(under);
    assert_non_null(bad);
    assert_int_equal(errno, ENOTDIR);
    assert_string_equal(bad, file);                /* the file in the way, not a parent */
    free(bad);
    if (geteuid() != 0) {                          /* root writes whatever the mode says */
        assert_int_equal(chmod(deep, 0500), 0);
        bad = dir_unwritable(deep);
        assert_non_null(bad);
        assert_int_equal(errno, EACCES);
        assert_string_equal(bad, deep);
        free(bad);
        chmod(deep, 0700);
    }
    remove_tree(top);
    free(deep);
    free(file);
    free(under);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_ratio_text),
        cmocka_unit_test(test_run_capture),
        cmocka_unit_test(test_stop_signals),
        cmocka_unit_test(test_dir_unwritable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

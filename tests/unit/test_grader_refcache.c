/* The class's shared reference time (refcache.h) and the GPU's lock (gpulock.h): a measurement
 * serves a bounded number of gradings for a bounded time; a timed run excludes every other use
 * of the GPU, untimed uses share it, and a waiting timed run is not starved by new ones. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "gpulock.h"
#include "refcache.h"

static char *tmp_dir(void)
{
    char tmpl[] = "/tmp/refcache.XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void test_serves_then_measures_again(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    struct ref_time t = {.ms = 2.5, .min_ms = 2.4, .max_ms = 2.9, .floor_ms = 0.1};
    struct ref_time got;
    assert_int_equal(refcache_take(dir, "04-tiling__matmul_tiled__4096", 300, 3, &got), 0);
    assert_int_equal(refcache_put(dir, "04-tiling__matmul_tiled__4096", &t), 0);
    /* max_uses 3: the grading that measured, then two more */
    for (int i = 0; i < 2; i++) {
        memset(&got, 0, sizeof got);
        assert_int_equal(refcache_take(dir, "04-tiling__matmul_tiled__4096", 300, 3, &got), 1);
        assert_true(got.ms == 2.5 && got.min_ms == 2.4 && got.max_ms == 2.9 && got.floor_ms == 0.1);
        assert_true(got.at > 1e9 && got.at <= (double)time(NULL) + 1);
    }
    assert_int_equal(refcache_take(dir, "04-tiling__matmul_tiled__4096", 300, 3, &got), 0);
    /* a fresh measurement serves again, and the newest one is what is served */
    t.ms = 3.0;
    assert_int_equal(refcache_put(dir, "04-tiling__matmul_tiled__4096", &t), 0);
    assert_int_equal(refcache_take(dir, "04-tiling__matmul_tiled__4096", 300, 3, &got), 1);
    assert_true(got.ms == 3.0);
    /* keys do not mix */
    assert_int_equal(refcache_take(dir, "03-naive-matmul__matmul_naive__1024", 300, 3, &got), 0);
    remove_tree(dir);
    free(dir);
}

static void test_too_old_is_measured_again(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    struct ref_time t = {.ms = 1, .min_ms = 1, .max_ms = 1, .floor_ms = -1}, got;
    assert_int_equal(refcache_put(dir, "k", &t), 0);
    assert_int_equal(refcache_take(dir, "k", 0, 100, &got), 0);
    assert_int_equal(refcache_take(dir, "k", 60, 100, &got), 1);
    /* a key with odd characters stays one file inside the directory */
    assert_int_equal(refcache_put(dir, "../x y", &t), 0);
    char *inside = path_join(dir, ".._x_y.ref");
    assert_true(is_file(inside));
    free(inside);
    remove_tree(dir);
    free(dir);
}

static void test_unwritable_cache_says_so(void **state)
{
    (void)state;
    struct ref_time t = {.ms = 1}, got;
    assert_int_equal(refcache_take("/proc/no/such/dir", "k", 60, 3, &got), -1);
    assert_int_equal(refcache_put("/proc/no/such/dir", "k", &t), -1);
}

/* 1 when the lock file at path could be taken now with how (LOCK_SH / LOCK_EX). */
static int could_take(const char *path, int how)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    assert_true(fd >= 0);
    int ok = flock(fd, how | LOCK_NB) == 0;
    close(fd);
    return ok;
}

static void test_timed_excludes_shared_shares(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *lock = path_join(dir, "gpu0.lock");
    assert_int_equal(gpu_lock_take(NULL, GPU_TIMED), -1);
    int a = gpu_lock_take(lock, GPU_SHARED), b = gpu_lock_take(lock, GPU_SHARED);
    assert_true(a >= 0 && b >= 0);
    assert_false(could_take(lock, LOCK_EX));
    gpu_lock_drop(a);
    gpu_lock_drop(b);
    int t = gpu_lock_take(lock, GPU_TIMED);
    assert_true(t >= 0);
    assert_false(could_take(lock, LOCK_SH));
    gpu_lock_drop(t);
    assert_true(could_take(lock, LOCK_SH));
    assert_int_equal(fcntl(gpu_lock_take(lock, GPU_SHARED), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    free(lock);
    remove_tree(dir);
    free(dir);
}

/* A timed run waiting behind a shared user holds the turnstile: a new shared user waits too. */
static void test_waiting_timed_run_not_starved(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *lock = path_join(dir, "gpu0.lock"), *turn = path_join(dir, "gpu0.lock.turn");
    int shared = gpu_lock_take(lock, GPU_SHARED);
    assert_true(shared >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        close(shared); /* the parent's lock, or the child would keep holding it */
        _exit(gpu_lock_take(lock, GPU_TIMED) >= 0 ? 0 : 1);
    }
    int waiting = 0;
    for (int i = 0; i < 200 && !waiting; i++) {
        usleep(10000);
        waiting = !could_take(turn, LOCK_EX);
    }
    assert_true(waiting);
    assert_true(could_take(lock, LOCK_SH)); /* the GPU lock alone would let it in... */
    gpu_lock_drop(shared);                  /* ...the turnstile does not, until the run has it */
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(could_take(turn, LOCK_EX));
    free(lock);
    free(turn);
    remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serves_then_measures_again),
        cmocka_unit_test(test_too_old_is_measured_again),
        cmocka_unit_test(test_unwritable_cache_says_so),
        cmocka_unit_test(test_timed_excludes_shared_shares),
        cmocka_unit_test(test_waiting_timed_run_not_starved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

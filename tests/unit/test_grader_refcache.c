/* The class's shared reference time (refcache.h) and the GPU's lock (gpulock.h): a measurement
 * serves a bounded number of gradings for a bounded time, and the newest is there to bound a
 * run whatever its age; a run that needs the GPU alone excludes every other use of it, timed
 * runs exclude one another but not untimed uses, untimed uses share it, and a run waiting for
 * the GPU alone is not starved by new untimed ones. A grader given its GPU by
 * CUDA_VISIBLE_DEVICES names its files by that GPU, so that graders on two GPUs hold two locks. */
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
    struct ref_time t = {.ms = 2.5, .min_ms = 2.4, .max_ms = 2.9, .floor_ms = 0.1, .turn_s = 0.75};
    struct ref_time got;
    assert_int_equal(refcache_take(dir, "04-tiling__matmul_tiled__4096", 300, 3, &got), 0);
    assert_int_equal(refcache_peek(dir, "04-tiling__matmul_tiled__4096", &got), 0);
    assert_int_equal(refcache_put(dir, "04-tiling__matmul_tiled__4096", &t), 0);
    /* a peek counts no use */
    for (int i = 0; i < 5; i++) {
        memset(&got, 0, sizeof got);
        assert_int_equal(refcache_peek(dir, "04-tiling__matmul_tiled__4096", &got), 1);
        assert_true(got.ms == 2.5 && got.turn_s == 0.75);
    }
    /* max_uses 3: the grading that measured, then two more */
    for (int i = 0; i < 2; i++) {
        memset(&got, 0, sizeof got);
        assert_int_equal(refcache_take(dir, "04-tiling__matmul_tiled__4096", 300, 3, &got), 1);
        assert_true(got.ms == 2.5 && got.min_ms == 2.4 && got.max_ms == 2.9 && got.floor_ms == 0.1);
        assert_true(got.at > 1e9 && got.at <= (double)time(NULL) + 1);
    }
    assert_int_equal(refcache_take(dir, "04-tiling__matmul_tiled__4096", 300, 3, &got), 0);
    /* used up, it still bounds a run */
    assert_int_equal(refcache_peek(dir, "04-tiling__matmul_tiled__4096", &got), 1);
    assert_true(got.turn_s == 0.75);
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

/* A log written before the turn was kept: five numbers, the turn unknown. */
static void test_old_log_has_no_turn(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *path = path_join(dir, "k.ref");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "M %.6f 2 1.5 2.5 0.5\n", (double)time(NULL));
    fclose(f);
    struct ref_time got;
    assert_int_equal(refcache_peek(dir, "k", &got), 1);
    assert_true(got.ms == 2 && got.floor_ms == 0.5 && got.turn_s < 0);
    assert_int_equal(refcache_take(dir, "k", 60, 3, &got), 1);
    free(path);
    remove_tree(dir);
    free(dir);
}

static void test_unwritable_cache_says_so(void **state)
{
    (void)state;
    struct ref_time t = {.ms = 1}, got;
    assert_int_equal(refcache_take("/proc/no/such/dir", "k", 60, 3, &got), -1);
    assert_int_equal(refcache_put("/proc/no/such/dir", "k", &t), -1);
    assert_int_equal(refcache_peek("/proc/no/such/dir", "k", &got), -1);
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

static void test_uses_exclude_as_documented(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *lock = path_join(dir, "gpu0.lock"), *timed = path_join(dir, "gpu0.lock.timed");
    struct gpu_hold none = gpu_hold_take(NULL, GPU_ALONE, NULL);
    assert_false(gpu_hold_held(&none));
    /* untimed uses share the GPU */
    struct gpu_hold a = gpu_hold_take(lock, GPU_SHARED, NULL), b = gpu_hold_take(lock, GPU_SHARED, NULL);
    assert_true(gpu_hold_held(&a) && gpu_hold_held(&b));
    assert_false(could_take(lock, LOCK_EX));
    /* a timed run goes on beside them, and keeps every other timed run out */
    struct gpu_hold t = gpu_hold_take(lock, GPU_TIMED, NULL);
    assert_true(t.whole >= 0 && t.timed >= 0);
    assert_false(could_take(timed, LOCK_EX));
    assert_true(could_take(lock, LOCK_SH));
    assert_int_equal(fcntl(t.timed, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    gpu_hold_drop(&t);
    assert_true(could_take(timed, LOCK_EX));
    /* at a gate: a timed run keeps its shared hold, takes the turn, and hands it on when done */
    struct gpu_hold g = gpu_hold_take(lock, GPU_SHARED, NULL);
    gpu_hold_turn(&g, lock, GPU_TIMED, NULL);
    assert_true(g.whole >= 0 && g.timed >= 0);
    assert_false(could_take(timed, LOCK_EX));
    gpu_hold_end_turn(&g, GPU_TIMED);
    assert_true(g.whole >= 0 && g.timed == -1);
    assert_true(could_take(timed, LOCK_EX));
    assert_false(could_take(lock, LOCK_EX)); /* still a user of the GPU until it ends */
    gpu_hold_drop(&g);
    gpu_hold_drop(&a);
    gpu_hold_drop(&b);
    /* the GPU alone: no untimed use, and no timed run, since those hold the GPU shared too */
    struct gpu_hold alone = gpu_hold_take(lock, GPU_ALONE, NULL);
    assert_true(alone.whole >= 0 && alone.timed == -1);
    assert_false(could_take(lock, LOCK_SH));
    assert_int_equal(fcntl(alone.whole, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    gpu_hold_drop(&alone);
    assert_true(alone.whole == -1 && alone.timed == -1);
    assert_true(could_take(lock, LOCK_EX) && could_take(timed, LOCK_EX));
    /* at a gate, one that needs the GPU alone trades its shared hold for it, and shares it
     * again when its timed calls are over: a user of the GPU until it ends, no longer alone */
    g = gpu_hold_take(lock, GPU_SHARED, NULL);
    gpu_hold_turn(&g, lock, GPU_ALONE, NULL);
    assert_true(g.whole >= 0 && g.timed == -1);
    assert_false(could_take(lock, LOCK_SH));
    gpu_hold_end_turn(&g, GPU_ALONE);
    assert_true(g.whole >= 0 && g.timed == -1);
    assert_true(could_take(lock, LOCK_SH));
    assert_false(could_take(lock, LOCK_EX));
    gpu_hold_drop(&g);
    assert_true(could_take(lock, LOCK_EX));
    /* the right to measure a task's reference: one holder at a time, apart from the GPU's
     * locks and from another task's */
    char *measure = path_join(dir, "gpu0.lock.measure.a__t__big");
    char *other = path_join(dir, "gpu0.lock.measure.a__u__big");
    assert_int_equal(gpu_measure_take(NULL, "a__t__big", NULL), -1);
    assert_int_equal(gpu_measure_take(lock, NULL, NULL), -1);
    int m = gpu_measure_take(lock, "a__t__big", NULL);
    assert_true(m >= 0);
    assert_false(could_take(measure, LOCK_EX));
    assert_true(could_take(lock, LOCK_EX));
    int m2 = gpu_measure_take(lock, "a__u__big", NULL);
    assert_true(m2 >= 0);
    assert_false(could_take(other, LOCK_EX));
    close(m2);
    close(m);
    assert_true(could_take(measure, LOCK_EX));
    free(measure);
    free(other);
    free(lock);
    free(timed);
    remove_tree(dir);
    free(dir);
}

/* A child that takes use on lock (gated: the GPU shared first, then use as at a run's gate),
 * says so on the pipe, and holds it until killed. */
static pid_t hold_in_child(const char *lock, enum gpu_use use, int gated, int *ready)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        /* the parent's locks, or the child would hold them too (flock follows the open file) */
        for (int fd = 3; fd < 256; fd++)
            if (fd != p[1])
                close(fd);
        struct gpu_hold h = gpu_hold_take(lock, gated ? GPU_SHARED : use, NULL);
        if (gated)
            gpu_hold_turn(&h, lock, use, NULL);
        int held = use == GPU_TIMED ? h.whole >= 0 && h.timed >= 0 : gpu_hold_held(&h);
        char c = held ? 'y' : 'n';
        if (write(p[1], &c, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(p[1]);
    *ready = p[0];
    return pid;
}

/* 1 when the child said within ms that it holds its use. */
static int child_holds(int ready, int ms)
{
    struct timespec step = {0, 10 * 1000 * 1000};
    for (int i = 0; i < ms / 10; i++) {
        char c;
        int fl = fcntl(ready, F_GETFL);
        fcntl(ready, F_SETFL, fl | O_NONBLOCK);
        if (read(ready, &c, 1) == 1)
            return c == 'y';
        nanosleep(&step, NULL);
    }
    return 0;
}

static void end_child(pid_t pid, int ready)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(ready);
}

/* A run that needs the GPU alone waits for a timed run in progress, and a timed run waits for
 * it; untimed uses never wait for a timed run. */
static void test_alone_waits_for_timed_run(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *lock = path_join(dir, "gpu0.lock");
    struct gpu_hold t = gpu_hold_take(lock, GPU_TIMED, NULL);
    assert_true(gpu_hold_held(&t));
    int r_shared, r_alone, r_timed;
    pid_t shared = hold_in_child(lock, GPU_SHARED, 0, &r_shared);
    assert_true(child_holds(r_shared, 2000));
    end_child(shared, r_shared);
    pid_t alone = hold_in_child(lock, GPU_ALONE, 0, &r_alone);
    assert_false(child_holds(r_alone, 300));
    gpu_hold_drop(&t);
    assert_true(child_holds(r_alone, 2000));
    pid_t timed = hold_in_child(lock, GPU_TIMED, 0, &r_timed);
    assert_false(child_holds(r_timed, 300));
    end_child(alone, r_alone);
    assert_true(child_holds(r_timed, 2000));
    end_child(timed, r_timed);
    free(lock);
    remove_tree(dir);
    free(dir);
}

/* A run waiting for the GPU alone behind a shared user holds the turnstile: a new shared user
 * waits too. */
static void test_waiting_alone_run_not_starved(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *lock = path_join(dir, "gpu0.lock"), *turn = path_join(dir, "gpu0.lock.turn");
    struct gpu_hold shared = gpu_hold_take(lock, GPU_SHARED, NULL);
    assert_true(gpu_hold_held(&shared));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        gpu_hold_drop(&shared); /* the parent's lock, or the child would keep holding it */
        struct gpu_hold h = gpu_hold_take(lock, GPU_ALONE, NULL);
        _exit(gpu_hold_held(&h) ? 0 : 1);
    }
    int waiting = 0;
    for (int i = 0; i < 200 && !waiting; i++) {
        usleep(10000);
        waiting = !could_take(turn, LOCK_EX);
    }
    assert_true(waiting);
    assert_true(could_take(lock, LOCK_SH)); /* the GPU lock alone would let it in... */
    gpu_hold_drop(&shared);                 /* ...the turnstile does not, until the run has it */
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(could_take(turn, LOCK_EX));
    free(lock);
    free(turn);
    remove_tree(dir);
    free(dir);
}

/* The runs that need the GPU alone go one after another: a shared user that comes while one
 * waits lets every run alone that comes before the queue is empty go first, so the shared users
 * drain once for all of them (with the turnstile alone, each run alone waited for the shared
 * users that slipped in since the last). */
static void test_runs_alone_go_one_after_another(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *lock = path_join(dir, "gpu0.lock");
    struct gpu_hold s0 = gpu_hold_take(lock, GPU_SHARED, NULL);
    assert_true(gpu_hold_held(&s0));
    int r_a1, r_s1, r_a2;
    pid_t a1 = hold_in_child(lock, GPU_ALONE, 0, &r_a1);
    assert_false(child_holds(r_a1, 300));
    pid_t s1 = hold_in_child(lock, GPU_SHARED, 0, &r_s1); /* comes while a1 waits */
    assert_false(child_holds(r_s1, 300));
    gpu_hold_drop(&s0);
    assert_true(child_holds(r_a1, 2000));
    pid_t a2 = hold_in_child(lock, GPU_ALONE, 0, &r_a2); /* comes while a1 has its turn */
    assert_false(child_holds(r_a2, 300));
    end_child(a1, r_a1);
    assert_true(child_holds(r_a2, 2000)); /* before s1, which came first */
    assert_false(child_holds(r_s1, 300));
    end_child(a2, r_a2);
    assert_true(child_holds(r_s1, 2000)); /* the queue is empty: shared users come in */
    end_child(s1, r_s1);
    free(lock);
    remove_tree(dir);
    free(dir);
}

/* A run at its gate whose timed turn another run has waits holding nothing: a run that needs
 * the GPU alone waits for the run that times, not for every first look queued behind it (they
 * held the GPU shared while they waited). */
static void test_gate_waits_for_turn_holding_nothing(void **state)
{
    (void)state;
    char *dir = tmp_dir();
    char *lock = path_join(dir, "gpu0.lock");
    int r_t1, r_t2, r_a;
    pid_t t1 = hold_in_child(lock, GPU_TIMED, 1, &r_t1);
    assert_true(child_holds(r_t1, 2000));
    pid_t t2 = hold_in_child(lock, GPU_TIMED, 1, &r_t2); /* at its gate, the turn is t1's */
    assert_false(child_holds(r_t2, 300));
    assert_true(could_take(lock, LOCK_SH));
    pid_t a = hold_in_child(lock, GPU_ALONE, 0, &r_a);
    assert_false(child_holds(r_a, 300));
    end_child(t1, r_t1);
    assert_true(child_holds(r_a, 2000)); /* t2 does not hold it back */
    assert_false(child_holds(r_t2, 300));
    end_child(a, r_a);
    assert_true(child_holds(r_t2, 2000));
    end_child(t2, r_t2);
    free(lock);
    remove_tree(dir);
    free(dir);
}

/* One GPU named by index in CUDA_VISIBLE_DEVICES is the GPU of the files; a list, a UUID or
 * nothing leaves "<host>-gpu<ext>"; an explicit GPU wins. */
static void test_file_named_by_visible_gpu(void **state)
{
    (void)state;
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    char *want2 = NULL, *want_none = NULL, *want5 = NULL;
    assert_true(asprintf(&want2, "/d/%s-gpu2.lock", host) > 0);
    assert_true(asprintf(&want_none, "/d/%s-gpu.lock", host) > 0);
    assert_true(asprintf(&want5, "/d/%s-gpu5.lock", host) > 0);
    const char *old = getenv("CUDA_VISIBLE_DEVICES");
    char *saved = old ? strdup(old) : NULL;
    const struct {
        const char *env;
        int gpu;
        const char *want;
    } cases[] = {{"2", -1, want2},   {NULL, -1, want_none}, {"0,1", -1, want_none},
                 {"GPU-1a2b", -1, want_none}, {"", -1, want_none}, {"2", 5, want5}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].env)
            setenv("CUDA_VISIBLE_DEVICES", cases[i].env, 1);
        else
            unsetenv("CUDA_VISIBLE_DEVICES");
        char *p = gpu_file_path("/d", cases[i].gpu, ".lock");
        assert_string_equal(p, cases[i].want);
        free(p);
    }
    if (saved)
        setenv("CUDA_VISIBLE_DEVICES", saved, 1);
    else
        unsetenv("CUDA_VISIBLE_DEVICES");
    free(saved);
    free(want2);
    free(want_none);
    free(want5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serves_then_measures_again),
        cmocka_unit_test(test_too_old_is_measured_again),
        cmocka_unit_test(test_old_log_has_no_turn),
        cmocka_unit_test(test_unwritable_cache_says_so),
        cmocka_unit_test(test_uses_exclude_as_documented),
        cmocka_unit_test(test_alone_waits_for_timed_run),
        cmocka_unit_test(test_waiting_alone_run_not_starved),
        cmocka_unit_test(test_runs_alone_go_one_after_another),
        cmocka_unit_test(test_gate_waits_for_turn_holding_nothing),
        cmocka_unit_test(test_file_named_by_visible_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

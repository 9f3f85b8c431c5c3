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
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_protocol.h"
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

/* The gate (lab_protocol.h): the child's turn is taken when it says ready, the time that
 * takes is not counted against its wall-clock bound, and it goes on only when told to. */
struct turn {
    int calls;
    double sleep_s;
};

static void slow_turn(void *arg)
{
    struct turn *t = arg;
    t->calls++;
    usleep((useconds_t)(t->sleep_s * 1e6));
}

/* A run of argv through gate, both its bounds given, its output to out. */
static struct run_spec gated_spec(char **argv, const char *out, const struct run_gate *gate,
                                  double wall, double turn)
{
    return (struct run_spec){.argv = argv, .stdout_path = out, .stderr_path = out,
                             .wall_s = wall, .max_procs = 16, .gate = gate, .turn_s = turn};
}

static struct run_result run_gated(const char *script, const char *out, double wall,
                                   struct turn *t)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    struct run_gate gate = {slow_turn, NULL, t, NULL};
    struct run_spec s = gated_spec(argv, out, &gate, wall, 0);
    struct run_result r;
    assert_int_equal(run_sandboxed(&s, &r), 0);
    return r;
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

static void the_gate_opens_once_and_its_wait_is_not_wall_time(void **state)
{
    (void)state;
    char out[] = "/tmp/grader-run-XXXXXX";
    close(mkstemp(out));
    /* says ready, reads the answer, then says ready again: only one turn is taken */
    const char *speaker = "printf R >&$LAB_GATE_FD; c=$(dd bs=1 count=1 <&3 2>/dev/null); "
                          "(printf R >&3) 2>/dev/null; echo \"fd=$LAB_GATE_FD go=$c\"";
    struct turn t = {0, 1.0};
    struct run_result r = run_gated(speaker, out, 0.8, &t);
    assert_int_equal(r.end, RUN_EXITED); /* a turn of 1 s inside a bound of 0.8 s */
    assert_int_equal(r.exit_status, 0);
    assert_int_equal(t.calls, 1);
    assert_true(r.gate_passed);
    assert_true(r.gate_wait_s >= 0.9);
    assert_true(r.ready_s < r.wall_s - r.gate_wait_s + 0.01);
    assert_string_equal(slurp(out), "fd=3 go=G\n");

    /* a program that never says ready takes no turn and is bounded as always */
    t = (struct turn){0, 0};
    r = run_gated("echo \"fd=$LAB_GATE_FD\"; sleep 30", out, 0.5, &t);
    assert_int_equal(r.end, RUN_TIMED_OUT);
    assert_int_equal(t.calls, 0);
    assert_false(r.gate_passed);
    assert_string_equal(slurp(out), "fd=3\n");

    /* without a gate there is no variable */
    r = run_sh("echo \"fd=${LAB_GATE_FD-none}\"", out, 10, 0);
    assert_int_equal(r.end, RUN_EXITED);
    assert_false(r.gate_passed);
    assert_string_equal(slurp(out), "fd=none\n");
    unlink(out);
}

/* A bound on the turn: past the gate the run is stopped that long after its turn began,
 * however much of its wall-clock bound is left, and it says which bound stopped it. Before
 * the gate (its start) the turn's bound does not count. */
static void the_turn_is_bounded_from_the_gate(void **state)
{
    (void)state;
    char out[] = "/tmp/grader-run-XXXXXX";
    close(mkstemp(out));
    char *argv[] = {"/bin/sh", "-c",
                    "sleep 0.6; printf R >&$LAB_GATE_FD; c=$(dd bs=1 count=1 <&3 2>/dev/null); "
                    "sleep 30",
                    NULL};
    struct turn t = {0, 0};
    struct run_gate gate = {slow_turn, NULL, &t, NULL};
    struct run_spec s = gated_spec(argv, out, &gate, 20, 0.5);
    struct run_result r;
    double t0 = now_s();
    assert_int_equal(run_sandboxed(&s, &r), 0);
    double took = now_s() - t0;
    assert_int_equal(r.end, RUN_TIMED_OUT);
    assert_true(r.gate_passed && r.over_turn);
    assert_true(took > 1.0 && took < 5); /* the start (0.6 s) did not count against 0.5 s */
    char buf[256];
    run_describe(&s, &r, buf, sizeof buf);
    assert_string_equal(buf, "timed out: still running 0.5 s after its turn at the GPU began "
                             "(process group killed)");
    /* a run that ends inside its turn is not touched */
    argv[2] = "printf R >&$LAB_GATE_FD; c=$(dd bs=1 count=1 <&3 2>/dev/null); sleep 0.2";
    assert_int_equal(run_sandboxed(&s, &r), 0);
    assert_int_equal(r.end, RUN_EXITED);
    assert_false(r.over_turn);
    unlink(out);
}

/* With done() given, the gate stays open after "go": LAB_GATE_DONE hands the turn on (once),
 * and the turn's bound stops there. */
static void turn_done(void *arg)
{
    ((struct turn *)arg)->calls += 100;
}

static void the_turn_ends_when_the_program_says_done(void **state)
{
    (void)state;
    char out[] = "/tmp/grader-run-XXXXXX";
    close(mkstemp(out));
    char *argv[] = {"/bin/sh", "-c",
                    "printf R >&$LAB_GATE_FD; c=$(dd bs=1 count=1 <&3 2>/dev/null); sleep 0.2; "
                    "printf D >&3; (printf D >&3) 2>/dev/null; sleep 2; echo \"go=$c\"",
                    NULL};
    struct turn t = {0, 0};
    struct run_gate gate = {slow_turn, turn_done, &t, NULL};
    struct run_spec s = gated_spec(argv, out, &gate, 20, 1.0);
    struct run_result r;
    assert_int_equal(run_sandboxed(&s, &r), 0);
    /* 2.2 s in all, but done after 0.2 s of its turn. The second "done" is written from a
     * subshell: the gate may be closed by then, and SIGPIPE killed the whole shell in about
     * one run of three. */
    assert_int_equal(r.end, RUN_EXITED);
    assert_int_equal(t.calls, 101);      /* ready once, done once */
    assert_true(r.gate_passed);
    assert_true(r.done_s > r.ready_s + 0.15 && r.done_s < r.wall_s - 0.5);
    assert_string_equal(slurp(out), "go=G\n");
    /* done before ready is no word of the gate's: no turn, and the gate closes */
    t = (struct turn){0, 0};
    argv[2] = "printf D >&$LAB_GATE_FD; sleep 0.1; (printf R >&3) 2>/dev/null; sleep 0.3";
    assert_int_equal(run_sandboxed(&s, &r), 0);
    assert_int_equal(r.end, RUN_EXITED);
    assert_int_equal(t.calls, 0);
    assert_false(r.gate_passed);
    unlink(out);
}

/* The program's side of the gate: goes on when told (with the grader's key), stops when the
 * gate is broken; at done it commits to its hashes and takes the grader's picks. */
static void the_program_passes_the_gate_only_when_told(void **state)
{
    (void)state;
    unsetenv(LAB_GATE_ENV);
    int kept = 7;
    uint64_t key = 5;
    assert_int_equal(lab_gate_pass(&kept, &key), 0); /* no gate: straight on */
    assert_int_equal(kept, -1);
    assert_true(key == 0);
    assert_int_equal(lab_gate_done(kept, 1, 2, NULL, NULL, 0), -1); /* and nothing to say */
    unsigned char go[1 + LAB_GATE_KEY_BYTES];
    const uint64_t grader_key = 0x1234567890abcdefull;
    go[0] = LAB_GATE_GO;
    memcpy(go + 1, &grader_key, sizeof grader_key);
    for (int told = 0; told < 3; told++) {
        int sv[2];
        char c;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        char num[16];
        if (told == 2)
            assert_int_equal(write(sv[0], go, 1), 1); /* go without its key: broken */
        if (told == 1)
            assert_int_equal(write(sv[0], go, sizeof go), (ssize_t)sizeof go);
        if (told != 1)
            shutdown(sv[0], SHUT_WR); /* the grader is gone */
        snprintf(num, sizeof num, "%d", sv[1]);
        setenv(LAB_GATE_ENV, num, 1);
        assert_int_equal(lab_gate_pass(NULL, &key), told == 1 ? 0 : -1);
        assert_int_equal(read(sv[0], &c, 1), 1);
        assert_int_equal(c, LAB_GATE_READY);
        if (told == 1) {
            assert_true(key == grader_key);
            assert_int_equal(read(sv[0], &c, 1), 0); /* the program closed its end */
        }
        close(sv[0]);
    }
    /* kept open for the word that the timed calls are over, with the commitment */
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char num[16], c;
    assert_int_equal(write(sv[0], go, sizeof go), (ssize_t)sizeof go);
    /* the grader's picks, there before the program asks: repetitions 2 and 0 */
    unsigned char pick[1 + 3 * 4];
    uint32_t words[3] = {2, 2, 0};
    pick[0] = LAB_GATE_PICK;
    memcpy(pick + 1, words, sizeof words);
    assert_int_equal(write(sv[0], pick, sizeof pick), (ssize_t)sizeof pick);
    snprintf(num, sizeof num, "%d", sv[1]);
    setenv(LAB_GATE_ENV, num, 1);
    assert_int_equal(lab_gate_pass(&kept, &key), 0);
    assert_int_equal(kept, sv[1]);
    assert_int_equal(read(sv[0], &c, 1), 1);
    assert_int_equal(c, LAB_GATE_READY);
    const uint64_t hash[3] = {11, 22, 33};
    int picks[LAB_GATE_PICKS] = {-1, -1};
    assert_int_equal(lab_gate_done(kept, 1, 3, hash, picks, LAB_GATE_PICKS), 2);
    assert_int_equal(picks[0], 2);
    assert_int_equal(picks[1], 0);
    /* what the grader reads: done, then the commitment */
    assert_int_equal(read(sv[0], &c, 1), 1);
    assert_int_equal(c, LAB_GATE_DONE);
    struct gate_witness w = {.key = grader_key, .picks_wanted = 2};
    assert_int_equal(gate_commit_read(sv[0], &w, 1000), 0);
    assert_int_equal(w.committed, 1);
    assert_int_equal(w.warmup, 1);
    assert_int_equal(w.reps, 3);
    assert_true(w.hash[0] == 11 && w.hash[1] == 22 && w.hash[2] == 33);
    assert_int_equal(read(sv[0], &c, 1), 0); /* and closed */
    gate_witness_free(&w);
    close(sv[0]);
    setenv(LAB_GATE_ENV, "3x", 1);
    assert_int_equal(lab_gate_pass(&kept, &key), -1);
    assert_int_equal(kept, -1);
    unsetenv(LAB_GATE_ENV);
}

/* A commitment cut short, or claiming more repetitions than the protocol allows, is none. */
static void a_short_or_oversized_commitment_is_none(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        uint32_t head[2] = {1, k ? LAB_GATE_MAX_REPS + 1 : 4};
        uint64_t one = 9;
        assert_int_equal(write(sv[1], head, sizeof head), (ssize_t)sizeof head);
        assert_int_equal(write(sv[1], &one, sizeof one), (ssize_t)sizeof one); /* 1 of 4 */
        struct gate_witness w = {.key = 7};
        assert_int_equal(gate_commit_read(sv[0], &w, 200), -1);
        assert_int_equal(w.committed, 0);
        gate_witness_free(&w);
        close(sv[0]);
        close(sv[1]);
    }
    /* the grader's picks: distinct, below the repetitions */
    for (int t = 0; t < 50; t++) {
        struct gate_witness w = {.reps = 3, .picks_wanted = 2};
        gate_witness_pick(&w);
        assert_int_equal(w.n_picks, 2);
        assert_true(w.picks[0] != w.picks[1] && w.picks[0] < 3 && w.picks[1] < 3);
        struct gate_witness one = {.reps = 1, .picks_wanted = 2};
        gate_witness_pick(&one);
        assert_int_equal(one.n_picks, 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_status_and_merged_output),
        cmocka_unit_test(signals_timeouts_floods_and_forks),
        cmocka_unit_test(output_is_capped),
        cmocka_unit_test(grandchildren_are_killed),
        cmocka_unit_test(spawn_failure_and_description),
        cmocka_unit_test(the_gate_opens_once_and_its_wait_is_not_wall_time),
        cmocka_unit_test(the_turn_is_bounded_from_the_gate),
        cmocka_unit_test(the_turn_ends_when_the_program_says_done),
        cmocka_unit_test(the_program_passes_the_gate_only_when_told),
        cmocka_unit_test(a_short_or_oversized_commitment_is_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

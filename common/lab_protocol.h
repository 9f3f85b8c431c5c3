/* lab_protocol.h — what a task binary and the grader say to each other, in one place.
 *
 * Plain C, no CUDA: the task harness (common/) and the grader (grader/engine/) both include it,
 * and so do the stand-in task binaries of the grader's and TUI's tests. Every name below is
 * what goes over the wire: an exit status, a word in --list, a key in the TAP report. Change
 * one here and both sides change with it; restating one anywhere else is what
 * tests/tools/test_protocol_once.sh catches.
 */
#ifndef LAB_PROTOCOL_H
#define LAB_PROTOCOL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* ======================================================================= exit statuses */
/* Of every harness and demo; the grader reads them from the student's run and its own. */
enum lab_exit {
    LAB_EXIT_PASS = 0,   /* every case passed (or ran, when not checked here) */
    LAB_EXIT_FAIL = 1,   /* some case failed verification */
    LAB_EXIT_USAGE = 2,  /* bad command line or input file */
    LAB_EXIT_CUDA = 3,   /* a CUDA / cuBLAS call failed; its file:line line is on stderr */
    LAB_EXIT_SKIP = 77   /* no usable CUDA device, or unsupported architecture */
};

/* The status the grader has compute-sanitizer exit with when it found something
 * (--error-exitcode): distinct from every status above, so a finding is never read as one. */
#define LAB_EXIT_SANITIZER 99
#define LAB_EXIT_SANITIZER_ARG "99"

/* ======================================================================= --list */
/* One line per case: "NAME<TAB>DIMS<TAB>FLAGS". FLAGS is LAB_LIST_NONE or the words below
 * joined by LAB_LIST_JOIN ("speed,small"). */
#define LAB_LIST_SPEED "speed" /* the case the grader times against the reference */
#define LAB_LIST_SMALL "small" /* small enough for compute-sanitizer */
/* the speed case's shape (tile remainders, code paths, grid shape) at a size compute-sanitizer
 * runs in seconds: the sanitizers run it, since they do not run the speed case itself */
#define LAB_LIST_SANITIZE "sanitize"
/* more than four times the work of the case flagged sanitize (the speed case aside): too large
 * for the tools, which run every other case; its awkward shape the smaller cases have too */
#define LAB_LIST_LARGE "large"
#define LAB_LIST_JOIN ","
#define LAB_LIST_NONE "-"

/* ======================================================================= --report (TAP 14) */
/* "# KEY: value" comments before the plan. */
#define LAB_TAP_PROGRAM "program"
#define LAB_TAP_TASK "task"
#define LAB_TAP_SEED "seed"             /* the run's --seed */
#define LAB_TAP_DEVICE "device"         /* one line describing the GPU */
#define LAB_TAP_CHECK_SEED "check-seed" /* --verify: the salt of the check's sample */

/* Keys of a case's flat YAML block ("  KEY: value"). */
#define LAB_TAP_STATUS "status"                 /* one of the LAB_STATUS_* words */
#define LAB_TAP_TIME_MS "time_ms"               /* median of the timed calls */
#define LAB_TAP_TIME_MIN_MS "time_min_ms"
#define LAB_TAP_TIME_MAX_MS "time_max_ms"
#define LAB_TAP_REPS "reps"                     /* timed calls */
#define LAB_TAP_THROUGHPUT "throughput"         /* in LAB_TAP_UNIT, per second */
#define LAB_TAP_UNIT "unit"                     /* "GFLOP/s", "GB/s" */
#define LAB_TAP_FLOOR_MS "floor_ms"             /* reference's --no-check run: no honest run is faster */
#define LAB_TAP_REPS_CHECKED "reps_checked"     /* repetitions checked here or dumped */
#define LAB_TAP_CHECKED "checked"               /* elements compared */
#define LAB_TAP_BAD "bad"                       /* elements out of tolerance */
#define LAB_TAP_MAX_ABS_ERR "max_abs_err"
#define LAB_TAP_MAX_REL_ERR "max_rel_err"
#define LAB_TAP_FIRST_MISMATCH "first_mismatch" /* quoted: "[i] (row r, col c) expected x got y" */
#define LAB_TAP_MISMATCHES "mismatches"         /* quoted: the first few, joined by "; " */
#define LAB_TAP_NOTE "note"                     /* quoted: a failure that is not one element */
#define LAB_TAP_CHECK "check"                   /* quoted: how, when not every element on the CPU */

/* Values of LAB_TAP_STATUS. */
#define LAB_STATUS_PASS "pass"
#define LAB_STATUS_FAIL "fail"
#define LAB_STATUS_ERROR "error"
#define LAB_STATUS_SKIP "skip"

/* ======================================================================= the GPU's gate */
/* Gradings that share a GPU take turns for its use (grader/engine/contain/gpulock.h). Starting a
 * process and opening the device take a quarter of a second and do not need the GPU's turn, as
 * the timed calls do: so the grader hands a timed task program a socket, its descriptor number
 * in the environment variable LAB_GATE_ENV. With the device open and before any code under
 * test runs, the program writes LAB_GATE_READY there and waits for LAB_GATE_GO; in between, the
 * grader takes the program's turn at the GPU. When its timed calls are over, the program writes
 * LAB_GATE_DONE, and the grader hands the turn on while the program writes its report and
 * exits (closing a context of gigabytes takes a tenth of a second and more). Without the
 * variable a program goes straight on.
 *
 * The words carry the witness of the timed calls (grader/README.md, "the witness"), every
 * number in the host's byte order (both ends run on one machine):
 *   LAB_GATE_GO    then a key of LAB_GATE_KEY_BYTES the grader drew for this run (0: it wants
 *                  no commitment; the key then keys nothing the grader checks);
 *   LAB_GATE_DONE  then the commitment: uint32 warm-up calls, uint32 timed calls R (at most
 *                  LAB_GATE_MAX_REPS), and, when the key was not 0, R uint64: each timed
 *                  call's outputs hashed with the key (lab_witness.h: lab_witness_rep_*), as
 *                  they were when that call returned (a program that ran no speed case says
 *                  R = 0);
 *   LAB_GATE_PICK  the grader's answer: uint32 n (at most LAB_GATE_PICKS), then n distinct
 *                  uint32 repetition numbers below R: the repetitions the program dumps.
 * The grader's clock runs from the go it sent to the done it read: that is the witnessed time
 * of the calls, which no number the program writes can shorten. A program that says it is done
 * before its calls commits to outputs it does not yet have: the dumped ones then differ from
 * what it committed, and the grader says so. */
#define LAB_GATE_ENV "LAB_GATE_FD"
#define LAB_GATE_FD 3 /* the descriptor the grader passes */
#define LAB_GATE_READY 'R'
#define LAB_GATE_GO 'G'
#define LAB_GATE_DONE 'D'
#define LAB_GATE_PICK 'P'
#define LAB_GATE_KEY_BYTES 8
#define LAB_GATE_MAX_REPS 4096
#define LAB_GATE_PICKS 2 /* repetitions dumped for the verifier (lab.h: LAB_DUMP_REPS) */

/* Writes or reads exactly n bytes on the gate: 0, or -1 (the other end gone). */
static inline int lab_gate_send_all(int fd, const void *p, size_t n)
{
    const char *c = (const char *)p;
    while (n > 0) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static inline int lab_gate_recv_all(int fd, void *p, size_t n)
{
    char *c = (char *)p;
    while (n > 0) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The program's side: 0 when it may go on (no gate, or the grader said go), -1 when the gate
 * is broken (a bad number, the grader gone): the program must then stop, as for a bad
 * command line. *key gets the grader's key (0 without a gate). With kept NULL the socket is
 * closed before it returns, so that nothing the program runs afterwards can speak on the
 * gate; else it stays open for lab_gate_done, and *kept is its descriptor (-1: no gate). */
static inline int lab_gate_pass(int *kept, uint64_t *key)
{
    if (kept)
        *kept = -1;
    if (key)
        *key = 0;
    const char *v = getenv(LAB_GATE_ENV);
    if (!v || !*v)
        return 0;
    char *end;
    long fd = strtol(v, &end, 10);
    if (*end || fd < 3 || fd > 1023)
        return -1;
    char c = LAB_GATE_READY;
    uint64_t k = 0;
    int ok = lab_gate_send_all((int)fd, &c, 1) == 0 && lab_gate_recv_all((int)fd, &c, 1) == 0 &&
             c == LAB_GATE_GO && lab_gate_recv_all((int)fd, &k, sizeof k) == 0;
    if (ok && key)
        *key = k;
    if (ok && kept)
        *kept = (int)fd;
    else
        close((int)fd);
    return ok ? 0 : -1;
}

/* The timed calls are over: says so on the gate kept by lab_gate_pass with the commitment
 * (warmup and reps calls, hash[r] the keyed hash of timed call r's outputs: given when the
 * key was not 0, else NULL), reads the grader's picks into picks[0 .. max_picks) and closes
 * the gate. The number of picks, or -1 when there is no gate or the grader gave none (the
 * program then picks for itself). */
static inline int lab_gate_done(int fd, uint32_t warmup, uint32_t reps, const uint64_t *hash,
                                int *picks, int max_picks)
{
    if (fd < 0)
        return -1;
    char c = LAB_GATE_DONE;
    uint32_t head[2] = {warmup, reps}, n = 0;
    int ok = lab_gate_send_all(fd, &c, 1) == 0 && lab_gate_send_all(fd, head, sizeof head) == 0 &&
             (!hash || reps == 0 || lab_gate_send_all(fd, hash, reps * sizeof *hash) == 0) &&
             lab_gate_recv_all(fd, &c, 1) == 0 && c == LAB_GATE_PICK &&
             lab_gate_recv_all(fd, &n, sizeof n) == 0 && n <= LAB_GATE_PICKS &&
             (int)n <= max_picks;
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t r = 0;
        ok = lab_gate_recv_all(fd, &r, sizeof r) == 0 && r < reps;
        if (ok)
            picks[i] = (int)r;
    }
    close(fd);
    return ok ? (int)n : -1;
}

#endif /* LAB_PROTOCOL_H */

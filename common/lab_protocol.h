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

/* Values of LAB_TAP_STATUS. */
#define LAB_STATUS_PASS "pass"
#define LAB_STATUS_FAIL "fail"
#define LAB_STATUS_ERROR "error"
#define LAB_STATUS_SKIP "skip"

/* ======================================================================= the GPU's gate */
/* Gradings that share a GPU take turns for its use (grader/engine/gpulock.h). Starting a
 * process and opening the device take a quarter of a second and do not need the GPU's turn, as
 * the timed calls do: so the grader hands a timed task program a socket, its descriptor number
 * in the environment variable LAB_GATE_ENV. With the device open and before any code under
 * test runs, the program writes LAB_GATE_READY there and waits for LAB_GATE_GO; in between, the
 * grader takes the program's turn at the GPU. When its timed calls are over, the program writes
 * LAB_GATE_DONE, and the grader hands the turn on while the program writes its report and
 * exits (closing a context of gigabytes takes a tenth of a second and more). A program that
 * says it is done before its calls only times them beside other programs: slower, never
 * faster. Without the variable a program goes straight on. */
#define LAB_GATE_ENV "LAB_GATE_FD"
#define LAB_GATE_FD 3 /* the descriptor the grader passes */
#define LAB_GATE_READY 'R'
#define LAB_GATE_GO 'G'
#define LAB_GATE_DONE 'D'

/* The program's side: 0 when it may go on (no gate, or the grader said go), -1 when the gate
 * is broken (a bad number, the grader gone): the program must then stop, as for a bad
 * command line. With kept NULL the socket is closed before it returns, so that nothing the
 * program runs afterwards can speak on the gate; else it stays open for lab_gate_done, and
 * *kept is its descriptor (-1: no gate). */
static inline int lab_gate_pass(int *kept)
{
    if (kept)
        *kept = -1;
    const char *v = getenv(LAB_GATE_ENV);
    if (!v || !*v)
        return 0;
    char *end;
    long fd = strtol(v, &end, 10);
    if (*end || fd < 3 || fd > 1023)
        return -1;
    char c = LAB_GATE_READY;
    ssize_t n;
    do
        n = send((int)fd, &c, 1, MSG_NOSIGNAL); /* a socket, or the gate is broken */
    while (n < 0 && errno == EINTR);
    if (n == 1)
        do
            n = read((int)fd, &c, 1);
        while (n < 0 && errno == EINTR);
    int ok = n == 1 && c == LAB_GATE_GO;
    if (ok && kept)
        *kept = (int)fd;
    else
        close((int)fd);
    return ok ? 0 : -1;
}

/* The timed calls are over: says so on the gate kept by lab_gate_pass and closes it. */
static inline void lab_gate_done(int fd)
{
    if (fd < 0)
        return;
    char c = LAB_GATE_DONE;
    ssize_t n;
    do
        n = send(fd, &c, 1, MSG_NOSIGNAL); /* the grader may be gone: nothing to tell */
    while (n < 0 && errno == EINTR);
    close(fd);
}

#endif /* LAB_PROTOCOL_H */

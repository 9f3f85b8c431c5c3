/* runner.h — running a program with bounds (runner.c).
 *
 * The child gets a session and process group of its own (setsid), stdin from /dev/null,
 * stdout and stderr through pipes that the parent copies to files up to a cap, and these
 * resource limits:
 *   RLIMIT_CPU     cpu_s (a backstop; the wall clock is the real bound)
 *   RLIMIT_FSIZE   file_bytes (dumps are written by the child, so this is generous)
 *   RLIMIT_NOFILE  open_files
 *   RLIMIT_NPROC   the user's current task count + nproc_margin. The limit is per user and
 *                  counts threads (CUDA starts several), so it is relative; root ignores it.
 *   RLIMIT_DATA    data_bytes when > 0. Not RLIMIT_AS: the CUDA driver reserves a virtual
 *                  address range the size of all device and host memory, so an address-space
 *                  cap breaks every CUDA program; RLIMIT_DATA counts only private writable
 *                  mappings, which that reservation is not.
 * Every descriptor but 0, 1 and 2 is closed on exec, whatever the grader has open.
 * With a sandbox (sandbox.h, when sandboxes can be made here) the program runs under bwrap:
 * its own PID namespace, so nothing it starts outlives it, and the environment sandbox.h
 * names; without one, in the grader's environment plus env.
 * With a gate (struct run_gate) the child also gets the socket of lab_protocol.h's GPU gate.
 * While it runs, the parent also counts the child's processes (its group, and with a sandbox
 * everything under it) and kills them beyond max_procs (this works for root too), kills them
 * when a captured stream passes flood_bytes or disk_dir takes more than disk_bytes, and at
 * the wall-clock limit. After the child exits, whatever is left of its group is killed too.
 */
#ifndef GRADER_RUNNER_H
#define GRADER_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lab_protocol.h"

#include "sandbox.h"

/* The gate of lab_protocol.h: the child gets one end of a socket as descriptor LAB_GATE_FD and
 * its number in LAB_GATE_ENV. When the child writes LAB_GATE_READY there, ready(ctx) is called
 * and may block (it takes the GPU's lock); then the child is told LAB_GATE_GO. When it later
 * writes LAB_GATE_DONE, done(ctx) is called (NULL: the gate closes after LAB_GATE_GO); it
 * must not block. The wall-clock bound does not count the time ready() took. */
struct gate_witness;
struct run_gate {
    void (*ready)(void *ctx);
    void (*done)(void *ctx);
    void *ctx;
    struct gate_witness *witness; /* NULL: go carries key 0, no picks are sent */
};

/* The witness of a gated run (lab_protocol.h): the key sent with go, the grader's clock at go
 * and at done, the commitment read after done, and the repetitions picked for the dump. */
struct gate_witness {
    uint64_t key;         /* in: sent with go; 0: no hashes are asked for */
    int picks_wanted;     /* in: repetitions to pick (at most LAB_GATE_PICKS; 0: none) */
    double go_at, done_at; /* monotonic s: go sent, done read; 0: never */
    int committed;        /* a whole commitment was read after done */
    uint32_t warmup, reps;
    uint64_t *hash;       /* reps of them, with a key (malloc'd: gate_witness_free) */
    int picks[LAB_GATE_PICKS], n_picks; /* sent with LAB_GATE_PICK */
};
/* The commitment that follows LAB_GATE_DONE, read from fd within timeout_ms into w (its key
 * says whether hashes follow): 0, or -1 when it is cut short or out of bounds (w->committed
 * stays 0). */
int gate_commit_read(int fd, struct gate_witness *w, int timeout_ms);
/* Draws w->picks_wanted distinct repetitions below w->reps into w->picks. */
void gate_witness_pick(struct gate_witness *w);
void gate_witness_free(struct gate_witness *w);
/* The witnessed time: from go to done (s), or -1 when the run did not say done. */
double gate_witness_s(const struct gate_witness *w);

struct run_spec {
    char *const *argv;          /* argv[0] is looked up in PATH when it has no '/' */
    const char *cwd;            /* NULL: the grader's */
    const char *stdout_path;    /* NULL: discarded */
    const char *stderr_path;    /* NULL: discarded; the same path as stdout: one merged file */
    const char *const *env;     /* "KEY=VALUE" set in the child (NULL-terminated), or NULL */
    double wall_s;              /* > 0: killed after this long */
    double cpu_s;               /* > 0: RLIMIT_CPU */
    size_t output_cap;          /* bytes kept per file (0: 1 MiB) */
    size_t flood_bytes;         /* > 0: killed when one stream passes this */
    unsigned long long file_bytes; /* > 0: RLIMIT_FSIZE */
    unsigned long long data_bytes; /* > 0: RLIMIT_DATA */
    long open_files;            /* > 0: RLIMIT_NOFILE */
    long nproc_margin;          /* > 0: RLIMIT_NPROC relative to the user's tasks */
    int max_procs;              /* > 0: processes allowed in the group */
    const struct sandbox *sandbox; /* NULL, or when sandboxes cannot be made: none */
    const char *disk_dir;       /* with disk_bytes > 0: killed when this tree grows past it */
    unsigned long long disk_bytes;
    const volatile sig_atomic_t *cancel;
    const struct run_gate *gate;   /* NULL: none */
    double turn_s;                 /* > 0, with a gate: killed this long after the gate opened */
    int nice;                      /* > 0: the child's niceness (setpriority) */
    int threads_only;              /* the program may start threads, never a process: the
                                    * filter of threads_only.h, SIGSYS when it tries */
};

enum run_end {
    RUN_EXITED = 0,   /* exit_status is valid */
    RUN_SIGNALED,     /* term_signal is valid */
    RUN_TIMED_OUT,
    RUN_FLOODED,      /* printed more than flood_bytes */
    RUN_FORKED,       /* more than max_procs processes */
    RUN_DISK_FULL,    /* disk_dir grew past disk_bytes */
    RUN_CANCELLED,
    RUN_SPAWN_FAILED  /* could not start it (spawn_errno) */
};

struct run_result {
    enum run_end end;
    int exit_status;
    int term_signal;
    int spawn_errno;
    int truncated;          /* some output past output_cap was dropped */
    double wall_s;
    int gate_passed;        /* the child said LAB_GATE_READY and was let go */
    double ready_s;         /* from the start to LAB_GATE_READY */
    double gate_wait_s;     /* how long ready() took */
    double done_s;          /* > 0: from the start to LAB_GATE_DONE, less gate_wait_s */
    int over_turn;          /* timed out by turn_s, not wall_s */
    double turn_s;          /* with over_turn: the bound it passed (the gate may set it) */
};

/* Runs the spec to its end; returns 0 (the result says how it ended). */
int run_sandboxed(const struct run_spec *spec, struct run_result *res);
/* One line for a result that is not a plain exit: "killed by SIGSEGV (Segmentation fault)",
 * "timed out after 10.0 s", ... */
void run_describe(const struct run_spec *spec, const struct run_result *res, char *buf,
                  size_t len);

#endif /* GRADER_RUNNER_H */

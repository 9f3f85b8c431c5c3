/* witness.h — the grader's own clock over a student's timed calls (lab_protocol.h's gate).
 *
 * The harness times each call with CUDA events and reports the times: numbers in memory the
 * student's process can write. The grader timestamps the go it sent and the done it read
 * (W, runner.c) and does the same for the reference's run through the same harness path (the
 * speed case alone, same warm-up and repetitions, outputs kept and hashed: W_ref). The calls'
 * confirmed time is then
 *     t_conf = ref_ms + (W - W_ref) / calls
 * (calls: warm-up and timed, the window's), and a reported time far below it is a forged one.
 * The commitment the program sent with done binds the outputs it had then: the repetitions the
 * grader picked must be dumped with those hashes (witness_check_dump), so the work cannot be
 * left for after done. */
#ifndef GRADER_WITNESS_H
#define GRADER_WITNESS_H

#include <stddef.h>

#include "runner.h"

/* The share by which a reported time may fall below the witness's lower bound and still be
 * believed: what the GPU's clocks and the harness's noise move a median by between two runs
 * (medians of one binary move by a few percent from run to run, tens of percent only for calls
 * of microseconds, whose windows are mostly the harness's own work and are covered by
 * WITNESS_OVERHEAD_SLACK). A forgery smaller than a factor 1 / (1 - 0.25) = 1.33 passes; more
 * is caught once the slack is small beside the calls. On the H200 (grader/README.md, "The
 * witness") the window exceeded the reported calls by 1-2 ms a call at the median, up to
 * 17 ms on a busy first look, and 27-52 ms where the outputs are hashed on the CPU. */
#define WITNESS_MARGIN 0.25
/* The share of the reference's per-call harness work (its window per call less its median:
 * inputs drawn, uploaded, the L2 flushed, outputs kept and hashed) that may go either way
 * between two runs without a forgery: taken off t_conf before it is compared. Generous, since
 * a witness's first look is taken beside other work (its doubts get a second look alone). */
#define WITNESS_OVERHEAD_SLACK 0.5

/* The seconds a window may gain or lose whatever its calls: the grader's and the program's
 * wake-ups at go and done on a loaded host (a few milliseconds measured beside -j 2 gradings
 * of the stand-in tasks), spread over the window's calls. Calls of microseconds cannot be
 * confirmed closer than this. */
#define WITNESS_WINDOW_SLACK_S 0.05

enum witness_verdict { WITNESS_CONFIRMED, WITNESS_DOUBTED, WITNESS_UNKNOWN };

struct witness_in {
    double w_s, w_ref_s;      /* the windows (s); <= 0: not witnessed */
    int calls, calls_ref;     /* calls in each window (warm-up and timed) */
    double ref_ms, student_ms; /* the reference's median (trusted), the student's (reported) */
    double threshold;         /* the task's speed bar (ratio ref / student) */
};

struct witness_out {
    double t_conf_ms; /* the confirmed time per call */
    double t_low_ms;  /* less the slack: the fastest the witness allows */
    char why[320];    /* a doubt's reason, "" otherwise */
};

/* Whether the reported time is one the witness confirms: a passing ratio must also pass
 * against t_low (within WITNESS_MARGIN) and the reported median must not be far below it.
 * WITNESS_UNKNOWN when a window is missing or the ratio does not pass (nothing to confirm). */
enum witness_verdict witness_confirm(const struct witness_in *in, struct witness_out *out);

/* The picked repetitions of case_name dumped in dir hashed again with w's key and compared to
 * w's commitment: 0 when they all match, -1 with why (a mismatch, a repetition not dumped, no
 * commitment). */
int witness_check_dump(const char *dir, const char *case_name, const struct gate_witness *w,
                       char *why, size_t len);

#endif /* GRADER_WITNESS_H */

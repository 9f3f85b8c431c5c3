/* grade_steps.h — the steps of one grading (grade.h's protocol), one file each, over the
 * grading in progress (grade_job.h); grade.c runs them in order. A step may call a step of a
 * file listed before its own, never one after:
 *   grade_build.c    1, the build; and the one build of many tasks ahead of it
 *   grade_trust.c    2, the object check; the reference's hash; the skip probe
 *   grade_run.c      3 and 4, the cases and the exercise's graded run
 *   grade_check.c    5 and 7, the verification and the times against the reference
 *   grade_san.c      6, compute-sanitizer
 *   grade_ncu.c      8, the speed's cross-check under ncu
 *   grade_profile.c  the profile under ncu (never a verdict) */
#ifndef GRADER_GRADE_STEPS_H
#define GRADER_GRADE_STEPS_H

#include <signal.h>
#include <stddef.h>

#include "grade_job.h"

/* grade_build.c: the reference, then the exercise, built (1), or the build's fact recorded
 * (0); with o->batch, only this task's part of the build made ahead (grade_batch_build). */
int step_build(struct job *j);

/* grade_run.c: the cases from the reference's --list (0: none, the fact recorded); the
 * exercise's graded run, writing its dump and report there (1: verification follows). */
int step_list(struct job *j);
int step_run(struct job *j, const char *dump, const char *report);

/* grade_trust.c: what the object may define and call (objcheck.h; 0: rejected or not read);
 * the reference binary's hash taken once (0: unreadable) and checked before its verdict or
 * time is believed (0: changed, the grader's own error recorded); the exercise's exit 77
 * believed only when the reference skips too (returns 0: nothing follows a skip). */
int step_symbols(struct job *j);
int sol_hash_take(struct job *j);
int sol_intact(struct job *j);
int skip_checked(struct job *j);

/* grade_check.c: the verdict on the dump from a process that runs no student code (1: every
 * case passed), and the speed case's times against the reference (1: nothing found). */
int step_verify(struct job *j, const char *dump, const char *report);
/* The same verifier on the dump of a run beside the graded one (a compute-sanitizer tool's):
 * only the cases named, nothing recorded; its output to the work directory's out. Returns 1
 * when each of them passed, 0 when one did not (why: "case C: ..."), -1 when cancelled. */
int verify_beside(const struct job *j, const char *dump, const char *report, const char *out,
                  char *const *names, size_t n_names, const volatile sig_atomic_t *cancel,
                  char *why, size_t len);
int step_speed(struct job *j);
/* grade_opts.references_only: the reference timed on the speed case, with the GPU alone, and
 * the time put in the class's cache, unless the cache has one (another grading's, or one
 * timed while this waited for the right to measure). Nothing is recorded as a fact. */
void step_reference_ahead(struct job *j);
/* The witness's commitment checked against the dump of the exercise's run (witness.h): 1, or
 * 0 with the implausible fact recorded. 1 with --no-witness, or with no speed case. */
int witness_dump_checked(struct job *j);

/* grade_san.c: every sanitizer tool of the task started at once (they overlap the
 * verification); san_finish waits for them and, when keep, records their findings (a
 * finding: the sanitizer fact). */
void san_start(struct job *j);
void san_finish(struct job *j, int keep);

/* grade_ncu.c: the speed case once more under ncu (grade_ncu.h). ncu_draw_look draws whether
 * this grading is cross-checked whatever its ratio, and when it is, takes ncu's first look
 * (the GPU shared, a turn as a first look's), before the reference is timed: the draw does not
 * wait for the ratio, and the first look then does not wait for the times alone. step_ncu,
 * after the speed passed, cross-checks when drawn or faster than the reference (the first
 * look taken now when none was), looks again with the GPU alone when the first look does not
 * settle it, and records speed.ncu and, when the times disagree, the implausible fact. */
void ncu_draw_look(struct job *j);
void step_ncu(struct job *j);
/* The ncu to run, its view added to the sandbox once; NULL when none (and then, when say,
 * speed.ncu unavailable with why). */
char *ncu_tool(struct job *j, int say);
/* ncu run as argv says, with its log at log: as the student's program (in the sandbox, its
 * bounds) or, trusted, as the reference's; the GPU as use says. What the program prints goes
 * to out, never read. Returns the log (malloc'd, NULL when none), and in how the way the run
 * ended when it did not exit by itself ("" otherwise). */
char *ncu_logged_run(struct job *j, char *const *argv, int student, const char *log,
                     const char *out, enum gpu_use use, char *how, size_t howlen);

/* grade_profile.c: the exercise's speed case under ncu with o->profile_args, in the sandbox
 * as ncu's cross-check runs it, then the reference's, trusted; their outputs, or why there
 * are none, to the result (result_profile_text). Records no fact. */
void step_profile(struct job *j);

#endif /* GRADER_GRADE_STEPS_H */

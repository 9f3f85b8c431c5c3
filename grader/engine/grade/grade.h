/* grade.h — grading one task, end to end (grade.c).
 *
 * The protocol, for task T of lesson L (every run of student code in the sandbox, runner.h):
 *   1. make build/exercises/L/T build/solutions/L/T       -> build log, compiler diagnostics
 *      (class grading: make EXERCISES=<dir> EXBUILD=<scratch> <scratch>/exercises/L/T ...)
 *      then the hash of build/solutions/L/T, checked again before its verdict or time counts
 *   2. objcheck.h on the exercise object: what it defines and calls  -> rejected, or on
 *   3. build/solutions/L/T --list                          -> the cases, speed and small flags
 *   4. <exercise> --seed S --dump D --report R.tap         -> exit status, times (untrusted)
 *   5. build/solutions/L/T --verify D --seed S --report V.tap  -> the only verdict on correctness
 *   6. build/solutions/L/T --seed S --case SPEED --report REF.tap -> reference time, same run
 *   7. compute-sanitizer --tool X ... <exercise> --case SMALL   -> findings
 *   8. ncu ... <exercise> --case SPEED --warmup 0 --reps 3      -> the kernels' time, against
 *      step 4's (grade_ncu.h; when 10 % faster than the reference, or drawn)
 * Step 4's own report is read for times only; its exit status tells crash / CUDA error / skip,
 * and a skip counts only when the reference, run on the small case, skips too.
 */
#ifndef GRADER_GRADE_H
#define GRADER_GRADE_H

#include <signal.h>
#include <stdint.h>

#include "model.h"

/* The first eight are also the indexes of result_step_s (model.h). */
enum grade_step {
    GRADE_STEP_BUILD = 0,
    GRADE_STEP_SYMBOLS,
    GRADE_STEP_LIST,
    GRADE_STEP_RUN,
    GRADE_STEP_VERIFY,
    GRADE_STEP_REFERENCE,
    GRADE_STEP_SANITIZE,
    GRADE_STEP_PROFILE,
    GRADE_STEP_SLURM,           /* the runs in a Slurm job on a GPU node (grader/remote/) */
    GRADE_STEP_DONE,
    GRADE_STEP_COUNT
};
/* "building", "checking symbols", "listing cases", "running", "verifying", "timing the
 * reference", "sanitizing", "profiling", "Slurm", "done" */
const char *grade_step_name(enum grade_step s);

/* Called from the grading thread before each step (detail: e.g. the sanitizer tool, or NULL)
 * and once with GRADE_STEP_DONE. It must not free or change the task. */
typedef void (*grade_progress_fn)(void *user, const struct task *t, enum grade_step step,
                                  const char *detail);

struct grade_batch;

struct grade_opts {
    const char *root;           /* course root (Makefile, lessons/, solutions/); required */
    const char *build_dir;      /* pristine build dir, relative to root or absolute; "build" */
    /* Class grading: a student's copy of exercises/ and a scratch build dir for their objects
     * and binaries. NULL: <root>/exercises and build_dir. The student's tree is only read. */
    const char *exercises_dir;
    const char *exbuild_dir;
    /* The student's exercises as they gave them (absolute, links not resolved; NULL: not
     * checked): before any build, no symbolic link in it may lead outside the directory that
     * holds it (owntree.h), or every task is rejected with the link named. */
    const char *own_exercises;
    /* Where dumps, reports and captured output go: NULL -> <exbuild or build>/grader. */
    const char *work_dir;
    int seed_set;               /* 0: a fresh seed from the system for every grading */
    uint64_t seed;
    double build_timeout_s;     /* make (default 300) */
    double run_timeout_s;       /* each run of the exercise (default 60) */
    double verify_timeout_s;    /* the verifier and the reference run (default 120) */
    double sanitize_timeout_s;  /* each compute-sanitizer tool (default 180) */
    int gpu;                    /* >= 0: CUDA_VISIBLE_DEVICES for every child; < 0: inherit */
    int sanitize;               /* 1: run compute-sanitizer (default); 0: skip that step */
    int build;                  /* 1: run make first (default); 0: use the binaries as they are */
    int no_sandbox;             /* 1: student code runs without bubblewrap (measurement only) */
    int no_objcheck;            /* 1: no objcheck.h step (testing the sandbox alone) */
    int no_witness;             /* 1: no witness of the timed calls (witness.h; measuring
                                   what it costs only) */
    /* 1: steps 1 and 2 only (the build and the object check), for a machine without a GPU
     * whose runs go elsewhere: a task that passes them ends OUTCOME_NOT_RUN with the reason
     * GRADE_CHECKS_ONLY_REASON; one that fails them has its outcome as a full grading would. */
    int checks_only;
    /* 1: no grading at all, only the reference's time on each task's speed case put in
     * ref_cache where it has none (a class's first round, class/pool.c: the time bounds the
     * first looks' turns, grade_run.c). Every task ends OUTCOME_NOT_RUN; the results are not
     * a student's. */
    int references_only;
    /* What grader/remote/ grades with when the runs go to a Slurm job (remote.h); the engine
     * never reads it. NULL: the runs are here. */
    const void *remote;
    /* Gradings that share a GPU (gpulock.h): the lock file of this grading's GPU; NULL: none. */
    const char *gpu_lock;
    /* The reference's time shared by a class's gradings on one GPU (refcache.h): the cache's
     * directory (NULL: the reference is timed for every grading), how old a measurement may
     * be and how many gradings it may serve before the reference is timed again. */
    const char *ref_cache;
    double ref_max_age_s;       /* default 300 */
    int ref_max_uses;           /* default 20 */
    size_t output_cap_bytes;    /* per captured stream of a child (default 1 MiB) */
    /* RLIMIT_DATA of the exercise's process (runner.h says why not RLIMIT_AS); default half
     * of the machine's memory; 0: none. */
    unsigned long long mem_limit_bytes;
    const char *make;           /* default "make" */
    /* The builds of several tasks made ahead, one make per side (grade_batch_build); NULL:
     * each task's build step makes its own. */
    const struct grade_batch *batch;
    const char *sanitizer;      /* compute-sanitizer path; NULL: PATH, then $CUDA_HOME/bin,
                                   then /usr/local/cuda/bin */
    /* The speed's cross-check under Nsight Compute (grade_ncu.h): run for every result faster
     * than the reference and for this share of the others (default 0.1; 0: only the faster,
     * 1: always); the ncu path (NULL: searched as the sanitizer is) and its wall limit. */
    double ncu_share;
    const char *ncu;
    double ncu_timeout_s;       /* default 300 */
    /* The profile (grader/profile/): when not NULL, the speed case of an exercise whose time
     * was measured runs once more under ncu with these options (NULL-terminated: sections,
     * metrics), and the reference's too; the outputs go to the result. Never a verdict. */
    const char *const *profile_args;
    grade_progress_fn progress; /* may be NULL */
    void *progress_user;
    /* Polled between steps and while a child runs: nonzero kills the child and returns a
     * result with OUTCOME_NOT_RUN and reason "cancelled". May be NULL. */
    const volatile sig_atomic_t *cancel;
};

#define GRADE_CHECKS_ONLY_REASON "built and checked here; its runs are due on a GPU"

/* Defaults as documented above; root stays NULL. */
void grade_opts_init(struct grade_opts *o);

/* Grades t. Never NULL (NULL only when out of memory); the caller owns the result (hand it
 * to the task with task_set_result, or free it with task_result_free). Safe to call from
 * several processes at once on different exbuild/work dirs. */
struct task_result *grade_task(const struct task *t, const struct grade_opts *o);

/* grade_task in three parts, for grade_many and grade_ahead. grade_begin runs the steps up to
 * the exercise's graded run (1-4); grade_check the verifier with the sanitizers beside it (5,
 * 7); grade_end the times that need the GPU alone (6, a second look) and ncu's (8), when
 * they are due, and hands over the result as grade_task would (it runs grade_check first when
 * it was not). In between, the grading holds its work dir and nothing on the GPU. */
struct grading;
struct grading *grade_begin(const struct task *t, const struct grade_opts *o);
void grade_check(struct grading *g);
/* After grade_check: 1 when grade_end will time (the answer was right and nothing else was
 * found). */
int grading_times_next(const struct grading *g);
/* grade_end's timed runs (the reference's, a second look, ncu's) call wait(ctx) at their
 * gates, their programs started and their devices open, before they ask for their turn. */
void grading_turn_wait(struct grading *g, void (*wait)(void *ctx), void *ctx);
struct task_result *grade_end(struct grading *g);

/* Before grading several tasks with the same options: the reference solutions of tasks[0..n)
 * in one make in the course root, then every exercise of them that exists in ONE make -k -j in
 * the sandbox, under the bounds of one task's build (step 1 above), into a scratch
 * directory of its own. Each grade_task's build step then takes its task's object and binary
 * from there and the lines of the log that name its files; a task whose target is not there,
 * or all of them when that make did not run to its end, builds alone as without a batch, so
 * that its log holds its own errors only. Set o->batch to it for those gradings, then free it.
 * NULL when there is nothing to share (fewer than two tasks, o->build off). */
struct grade_batch *grade_batch_build(const struct task *const *tasks, size_t n,
                                      const struct grade_opts *o);
/* How many makes it ran (2 when the course built), and in how many seconds. */
unsigned grade_batch_makes(const struct grade_batch *b);
double grade_batch_seconds(const struct grade_batch *b);
void grade_batch_free(struct grade_batch *b);
/* 1 when b made the reference solutions of its tasks (NULL: 0). */
int grade_batch_course_built(const struct grade_batch *b);

/* Several tasks at once (grade_many.c): tasks[0..n) begun in order by `jobs` threads (no more
 * than `jobs` waiting to be checked) and checked by `jobs` others (grade_begin, grade_check);
 * each one's times (grade_end) start on a thread of their own (up to 4 x jobs) as soon as its
 * verdict is in, but no run of theirs takes its turn at the GPU before every task has its
 * verdict. Each result is handed to done (which owns it) in the order of tasks, on the calling
 * thread. The gradings share o, its GPU lock included: a timed run holds the GPU alone as it
 * would graded alone. Without o->gpu_lock, or with o->build and the references not made by
 * o->batch (each grading would make them in the same tree), they are graded one after the
 * other. When o->cancel is raised no task is started; the gradings under way end as cancelled
 * and are handed over. Returns how many results were handed over. */
typedef void (*grade_done_fn)(size_t i, struct task_result *r, void *user);
size_t grade_many(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                  unsigned jobs, grade_done_fn done, void *user);
/* One task after another, as grade_task would, except that the next task's grade_begin (its
 * build's share, symbols, cases and graded run) goes on beside this one's grade_check and
 * grade_end, never more than one ahead; results to done as grade_many's. Without
 * o->gpu_lock, one after the other. */
size_t grade_ahead(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                   grade_done_fn done, void *user);
/* The options task i is to be graded with (NULL: the caller's o), asked once, as it begins,
 * on a grading thread. */
typedef const struct grade_opts *(*grade_pick_fn)(size_t i, void *user);
/* grade_ahead with each task's options chosen by pick as it begins (a class sends each task
 * to one of its GPUs: their options differ in gpu, gpu_lock and ref_cache only). o gives the
 * cancel flag, and a lock when the options pick returns have one. */
size_t grade_ahead_pick(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                        grade_pick_fn pick, void *pick_user, grade_done_fn done, void *user);
/* How many gradings grade_many would run at once for jobs asked. */
unsigned grade_many_jobs(const struct grade_opts *o, unsigned jobs);

/* The options of the whole program, shared by the text/batch front end and the TUI. */
struct grader_opts {
    struct grade_opts grade;
    const char *state_path;     /* progress file (state.h); NULL: no saved progress */
    int no_color;               /* NO_COLOR set in the environment, or --no-color */
    int force;                  /* regrade even when the saved state is fresh */
    /* How the interactive course grades one task: NULL, grade_task; else this (the Slurm
     * path's, grader/remote/remote.h), with grade.remote set. */
    struct task_result *(*grade_one)(const struct task *t, const struct grade_opts *o);
    /* One line for the screen that says where the runs go ("no GPU here: ..."); NULL: here. */
    const char *remote_note;
};

#endif /* GRADER_GRADE_H */

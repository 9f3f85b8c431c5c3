/* grade.c — one task through the protocol of grade.h: the driver that runs the steps of
 * grade_steps.h in their order over one grading (grade_job.h), in the three parts grade_many
 * interleaves. */
#include "grade.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade_job.h"
#include "grade_steps.h"
#include "hash.h"
#include "owntree.h"
#include "sandbox.h"

static const char *const step_names[GRADE_STEP_COUNT] = {
    "building", "checking symbols", "listing cases", "running", "verifying",
    "timing the reference", "sanitizing", "profiling", "Slurm", "done",
};

const char *grade_step_name(enum grade_step s)
{
    return (unsigned)s < GRADE_STEP_COUNT ? step_names[s] : "?";
}

void grade_opts_init(struct grade_opts *o)
{
    memset(o, 0, sizeof *o);
    o->build_dir = "build";
    o->build_timeout_s = 300;
    o->run_timeout_s = 60;
    o->verify_timeout_s = 120;
    o->sanitize_timeout_s = 180;
    o->ncu_share = 0.1;
    o->ncu_timeout_s = 300;
    o->gpu = -1;
    o->sanitize = 1;
    o->build = 1;
    o->ref_max_age_s = 300;
    o->ref_max_uses = 20;
    o->output_cap_bytes = (size_t)1 << 20;
    o->make = "make";
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    o->mem_limit_bytes = pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page / 2 : 0;
}

/* ======================================================================= driver */
/* Runs one step, adding its wall time to the result. */
static int timed(struct job *j, enum grade_step step, int (*fn)(struct job *))
{
    double t0 = now_s();
    int ok = fn(j);
    j->r->step_s[step] += now_s() - t0;
    return ok;
}

static int do_build(struct job *j) { return step_build(j); }
static int do_symbols(struct job *j) { return step_symbols(j); }
static int do_list(struct job *j) { return step_list(j); }
static int do_run(struct job *j) { return step_run(j, j->dump, j->run_tap); }
static int do_profile(struct job *j) { step_profile(j); return 1; } /* decides nothing */
static int do_reference_ahead(struct job *j) { step_reference_ahead(j); return 1; }
/* Correct: every case verified, and no earlier fact (a crash, a CUDA error) stands. */
/* The reference is checked before its verdict or time is asked for, and again after: the
 * sanitizers run student code while the verifier works. */
static int do_verify(struct job *j)
{
    if (!sol_intact(j))
        return 0;
    int ok = step_verify(j, j->dump, j->verify_tap) && facts_none(&j->facts);
    /* the verified outputs must be those the run had when it said its timed calls were over */
    ok = ok && witness_dump_checked(j);
    return sol_intact(j) && ok;
}
static int do_speed(struct job *j) { return sol_intact(j) && step_speed(j) && sol_intact(j); }

/* Too slow gets a second look. The reference was timed anew for a too-slow verdict
 * (step_speed), but the exercise's time was taken once, and a call of a few tens of
 * microseconds timed while other gradings build, verify and sanitize beside it came out a
 * fifth slower than the same code's reference on the H200. So the graded run is made once
 * more, alone, verified as the first was, and timed against a time of the reference's taken
 * alone now: the one this grading measured moments before, else one taken anew right after
 * (grade_check.c: reference_time); still too slow against the one from before, against the
 * slower of it and one taken right after (step_speed). The second look decides (a run that
 * is wrong or crashes this time is graded for that). Only a result that would be too slow by
 * its ratio, and a time the witness doubts, are looked at again (run_speed: a third time when
 * the witness still doubts the second). */
static int second_look(struct job *j, const char *which)
{
    struct task_result *r = j->r;
    if (r->speed_first_ratio < 0) /* a third look keeps the first's ratio */
        r->speed_first_ratio = r->speed_ratio;
    r->speed_measured = 0;
    j->witness_doubt = 0;
    fact_drop(&j->facts, OUTCOME_TOO_SLOW);
    remove_tree(j->dump);
    unlink(j->run_tap);
    if (mkdir(j->dump, 0700) != 0) {
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot write %s: %s", j->dump, strerror(errno));
        return 0;
    }
    job_progress(j, GRADE_STEP_RUN, which);
    if (job_cancelled(j) || !timed(j, GRADE_STEP_RUN, do_run))
        return 0;
    job_progress(j, GRADE_STEP_VERIFY, which);
    if (job_cancelled(j) || !timed(j, GRADE_STEP_VERIFY, do_verify))
        return 0;
    job_progress(j, GRADE_STEP_REFERENCE, which);
    return !job_cancelled(j) && timed(j, GRADE_STEP_REFERENCE, do_speed);
}

/* This grading's work dir, fresh and private: an earlier run's files are removed and the dir
 * is made anew (mode 0700), so nothing another run left is ever read. When that cannot be
 * done, the grader's own error is the fact, not the student's build. */
static int make_work_dir(struct job *j)
{
    remove_tree(j->work);
    char *parent = xstrdup(j->work);
    *strrchr(parent, '/') = 0;
    int rc = mkdir_p(parent) == 0 && mkdir(j->work, 0700) == 0 ? 0 : -1;
    int err = errno;
    /* still there: another run's files that cannot be removed */
    if (rc != 0 && err == EEXIST)
        err = access(j->work, W_OK) != 0 ? errno : ENOTEMPTY;
    if (rc != 0)
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot write %s: %s",
                 err == EEXIST || err == ENOTEMPTY ? j->work : parent, strerror(err));
    free(parent);
    if (rc != 0)
        return -1;
    j->dump = xasprintf("%s/dump", j->scratch);
    j->run_tap = xasprintf("%s/exercise.tap", j->scratch);
    j->verify_tap = job_work_file(j, "verify.tap");
    char *out = job_work_file(j, "exercise.stdout"), *err_path = job_work_file(j, "exercise.stderr");
    set_str(&j->r->stdout_path, out);
    set_str(&j->r->stderr_path, err_path);
    free(out);
    free(err_path);
    if (mkdir(j->scratch, 0700) == 0 && mkdir(j->dump, 0700) == 0)
        return 0;
    job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot write %s: %s", j->work, strerror(errno));
    return -1;
}

/* The binary the build left in the scratch, moved out of it and shown to the sandbox read
 * only: every later run of the grading (the graded run, the sanitizers, a second look, ncu)
 * executes what the object check read, and none of them can replace it for the next. */
static int keep_binary(struct job *j)
{
    char *dir = job_work_file(j, "bin");
    char *bin = path_join(dir, task_name(j->t));
    int ok = mkdir(dir, 0700) == 0 && rename(j->ex_bin, bin) == 0;
    if (ok) {
        free(j->ex_bin);
        j->ex_bin = bin;
        j->bin_dir = dir;
        sandbox_add_ro(&j->sb, j->ex_bin);
    } else {
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot move the built binary to %s: %s",
                 bin, strerror(errno));
        free(bin);
        free(dir);
    }
    return ok;
}

/* The build, or with --no-build the binaries as they are. The exercise file must exist: make
 * would relink an old object of a deleted file. */
static int build_or_check(struct job *j)
{
    char own[1024];
    if (j->o->own_exercises && own_tree_check(j->o->own_exercises, own, sizeof own) != 0) {
        job_fact(j, OUTCOME_REJECTED, "%s", own);
        return 0;
    }
    if (!is_file(j->ex_src)) {
        char *shown = j->o->exercises_dir ? xstrdup(j->ex_src)
                                          : xasprintf("exercises/%s/%s.cu",
                                                      lesson_id(task_lesson(j->t)), task_name(j->t));
        job_fact(j, OUTCOME_BUILD_FAILED, "%s is missing", shown);
        free(shown);
        return 0;
    }
    if (j->o->build) {
        job_progress(j, GRADE_STEP_BUILD, NULL);
        return timed(j, GRADE_STEP_BUILD, do_build) && keep_binary(j);
    }
    if (is_file(j->ex_bin) && is_file(j->sol_bin))
        return 1;
    job_fact(j, OUTCOME_BUILD_FAILED, "not built: %s", is_file(j->ex_bin) ? j->sol_bin : j->ex_bin);
    return 0;
}

/* One step after another, each recording its facts; a step that returns 0 ends the grading.
 * The first part: every step up to the exercise's run. Returns 1 when the run is to be
 * checked (run_check). */
static int run_first(struct job *j)
{
    if (make_work_dir(j) != 0)
        return 0;
    job_sandbox_view(j);
    if (j->o->references_only) {
        if (sol_hash_take(j) && !job_cancelled(j) && timed(j, GRADE_STEP_LIST, do_list))
            timed(j, GRADE_STEP_REFERENCE, do_reference_ahead);
        job_fact(j, OUTCOME_NOT_RUN, "the reference timed ahead; nothing graded");
        return 0;
    }
    if (!build_or_check(j) || !sol_hash_take(j))
        return 0;
    job_progress(j, GRADE_STEP_SYMBOLS, NULL);
    if (job_cancelled(j) || !timed(j, GRADE_STEP_SYMBOLS, do_symbols))
        return 0;
    if (j->o->checks_only) {
        job_fact(j, OUTCOME_NOT_RUN, "%s", GRADE_CHECKS_ONLY_REASON);
        return 0;
    }
    job_progress(j, GRADE_STEP_LIST, NULL);
    if (job_cancelled(j) || !timed(j, GRADE_STEP_LIST, do_list))
        return 0;
    job_progress(j, GRADE_STEP_RUN, NULL);
    return !job_cancelled(j) && timed(j, GRADE_STEP_RUN, do_run);
}

/* The second: the verifier, with the sanitizers beside it (started first, stopped and
 * forgotten when the answer is wrong). Returns 1 when run_speed is to follow: the answer is
 * right and nothing else was found. */
static int run_check(struct job *j)
{
    if (j->o->sanitize && !job_cancelled(j))
        san_start(j);
    job_progress(j, GRADE_STEP_VERIFY, NULL);
    int correct = !job_cancelled(j) && timed(j, GRADE_STEP_VERIFY, do_verify);
    if (j->san) {
        /* what is left of the sanitizers' time after the verification they overlapped */
        double t0 = now_s();
        san_finish(j, correct);
        j->r->step_s[GRADE_STEP_SANITIZE] = now_s() - t0;
    }
    /* the dumps were read: a second look makes its own */
    remove_tree(j->dump);
    return correct && facts_none(&j->facts) && !job_cancelled(j);
}

/* The third: the times that need the GPU alone, and ncu's. A drawn cross-check takes its first
 * look before them: its turn is a first look's, which need not wait for the GPU alone. */
static void run_speed(struct job *j)
{
    job_progress(j, GRADE_STEP_REFERENCE, NULL);
    if (job_cancelled(j))
        return;
    ncu_draw_look(j);
    if (job_cancelled(j))
        return;
    if (j->ncu_looked)
        job_progress(j, GRADE_STEP_REFERENCE, NULL);
    int fast_enough = timed(j, GRADE_STEP_REFERENCE, do_speed);
    /* a first look the witness doubted (witness.h) was taken beside other work: a second
     * look, alone, decides whether its time is forged */
    if (((!fast_enough && j->facts.bits == 1u << OUTCOME_TOO_SLOW) ||
         (fast_enough && j->witness_doubt)) &&
        j->r->speed_measured && !job_cancelled(j))
        fast_enough = second_look(j, "a second look");
    /* A second look the witness still doubts against a window of the reference's taken right
     * after it gets a third, alone, whose doubt is the verdict: the windows hold the harness's
     * host work around every call, and a host whose other GPUs grade too is shared with their
     * gradings. On an H200 x4 host grading on two GPUs, a copy of lesson 04's reference
     * solution came out 18 ms a call longer than the reference's window right after it. A
     * forged time is doubted on every look. */
    if (fast_enough && j->witness_doubt && j->r->speed_measured && !job_cancelled(j)) {
        j->last_look = 1;
        fast_enough = second_look(j, "a third look");
    }
    if (fast_enough && !job_cancelled(j))
        step_ncu(j);
    if (j->o->profile_args && j->r->speed_measured && !job_cancelled(j))
        timed(j, GRADE_STEP_PROFILE, do_profile);
}

struct grading {
    struct job j;
    int checked;    /* run_first asked for run_check */
    int speed_next; /* run_check asked for run_speed */
    double busy_s;  /* grade_begin's, grade_check's and grade_end's wall time */
    double began;   /* grade_begin's start (now_s) */
};

struct grading *grade_begin(const struct task *t, const struct grade_opts *o)
{
    double t0 = now_s();
    struct grading *g = xcalloc(1, sizeof *g);
    g->began = t0;
    job_init(&g->j, t, o);
    char hash[HASH_HEX_LEN + 1];
    if (hash_file_hex(g->j.ex_src, hash) == 0)
        set_str(&g->j.r->exercise_hash, hash);
    g->checked = run_first(&g->j);
    g->busy_s = now_s() - t0;
    return g;
}

void grade_check(struct grading *g)
{
    double t0 = now_s();
    g->speed_next = g->checked && run_check(&g->j);
    g->checked = 0;
    g->busy_s += now_s() - t0;
}

int grading_times_next(const struct grading *g)
{
    return g->speed_next;
}

void grading_turn_wait(struct grading *g, void (*wait)(void *ctx), void *ctx)
{
    g->j.turn_wait = wait;
    g->j.turn_ctx = ctx;
}

struct task_result *grade_end(struct grading *g)
{
    if (g->checked)
        grade_check(g);
    double t0 = now_s();
    if (g->speed_next)
        run_speed(&g->j);
    /* nothing the student's code wrote stays, nor its binary */
    remove_tree(g->j.scratch);
    if (g->j.bin_dir)
        remove_tree(g->j.bin_dir);
    struct task_result *r = g->j.r;
    double end = now_s();
    /* the grading's own thread's waits for the GPU (job_gpu_account) are in busy_s; the time
     * between its stages, out of it, was spent waiting for other tasks */
    r->duration_s = fmax(0, g->busy_s + (end - t0) - r->wait_s);
    r->wait_s = fmax(0, (end - g->began) - r->duration_s);
    outcome_decide(r, &g->j.facts, job_cancelled(&g->j));
    job_progress(&g->j, GRADE_STEP_DONE, outcome_name(r->outcome));
    job_free(&g->j);
    free(g);
    return r;
}

struct task_result *grade_task(const struct task *t, const struct grade_opts *o)
{
    return grade_end(grade_begin(t, o));
}

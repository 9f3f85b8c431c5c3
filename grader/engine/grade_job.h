/* grade_job.h — one grading in progress, shared by the files of its steps: grade.c (the
 * driver, build, list, run), grade_trust.c (the object check, the reference's hash, the
 * skip probe), grade_check.c (verify, speed) and grade_san.c (compute-sanitizer). Not for other
 * modules. grade_build.c: the build step and the one build of many tasks ahead of it. */
#ifndef GRADER_GRADE_JOB_H
#define GRADER_GRADE_JOB_H

#include <pthread.h>
#include <signal.h>

#include "decide.h"
#include "gpulock.h"
#include "grade.h"
#include "hash.h"
#include "lab_protocol.h"
#include "model_impl.h"
#include "parse.h"
#include "refcache.h"
#include "runner.h"
#include "sandbox.h"
#include "witness.h"

#define LOG_READ_MAX ((size_t)4 << 20)
#define MAX_FINDINGS 20
#define REF_OWN_REUSE_S 60.0

/* One compute-sanitizer tool's run, for a thread of its own. */
struct job;
struct san_job {
    const struct job *job;
    char *log;
    char *dump, *report; /* its own, so the run looks like the graded one (san_start) */
    char **argv;
    struct run_spec spec;
    struct run_result res;
    pthread_t thread;
    int started;
    /* Its dump's verdict (verify_beside): 1 right, 0 wrong (why says how), -1 not checked. */
    int verdict;
    char why[512];
};

struct job {
    const struct task *t;
    const struct grade_opts *o;
    struct task_result *r;
    const char *root;
    char *build_abs, *exbuild_abs, *exercises_abs, *work;
    char *ex_bin, *sol_bin, *ex_obj, *ex_src;
    char *ex_target, *sol_target; /* the same binaries as make names them */
    char sol_hash[HASH_HEX_LEN + 1]; /* of sol_bin, taken right after the build */
    char *seed_arg;
    char *env_gpu, *env_queues;
    const char *env[3];        /* every program's: env_gpu, env_queues */
    const char *san_env[3];    /* the sanitizers': env_gpu, one work queue */
    struct list_case *cases;
    size_t n_cases;
    unsigned long long mem_limit;
    char *dump, *run_tap;              /* under scratch: the student's process writes them */
    char *verify_tap;                  /* under work */
    char *scratch;                     /* work/scratch: the only place student code may write */
    char *bin_dir;                     /* work/bin: the built binary, out of the scratch (NULL:
                                        * not built here) */
    struct sandbox sb;
    struct san_job *san;               /* one per tool, while they run */
    char *san_scratch;                 /* work/scratch2: theirs, while they run */
    struct sandbox san_sb;             /* sb with san_scratch for its scratch */
    size_t n_san;
    char *san_tool;
    char **san_cases;                  /* the cases they run: names in cases[] */
    size_t n_san_cases;
    volatile sig_atomic_t san_cancel;
    struct grade_facts facts;          /* what the steps found (decide.h) */
    /* Called at the gate of a timed run, before it asks for its turn (NULL: none): grade_end's
     * runs wait there for grade_many's first stage to end. */
    void (*turn_wait)(void *ctx);
    void *turn_ctx;
    /* The reference's time as this grading measured it, and when (now_s; 0: never): a second
     * look within REF_OWN_REUSE_S of it takes it rather than a new one. */
    struct ref_time ref_own;
    double ref_own_s;
    /* The exercise's last graded run's witness (witness.h), and whether its first look's time
     * was doubted by it (a second look, alone, decides). */
    struct gate_witness run_witness;
    int witness_doubt;
    /* The ncu cross-check's draw (grade_ncu.c), in [0, 1), -1 before it; a drawn grading's
     * first look, taken before the reference's time, and how it ended. */
    double ncu_draw;
    int ncu_looked;
    char *ncu_first;
    char ncu_first_how[256];
};


/* <work>/name, malloc'd. */
char *job_work_file(const struct job *j, const char *name);
/* The student's files as the student knows them: in the diagnostics and sanitizer findings
 * from these indices on, "<exercises_abs>/L/T.cu" reads "exercises/L/T.cu", wherever the
 * grader read them from (a class, through a link in its scratch directory), as --batch shows
 * the course's own exercises/. */
void job_show_exercises(const struct job *j, size_t diags_from, size_t findings_from);
void job_progress(const struct job *j, enum grade_step s, const char *detail);
int job_cancelled(const struct job *j);
/* The niceness of CPU work that may run beside another grading's timed run (builds, the
 * verifier): it yields the CPU to the timed program, whose calls of a few microseconds are
 * mostly the CPU's launch and synchronization. */
#define BESIDE_NICE 10
/* Student code, the verifier and the tools: all run through the same bounds. */
void job_spec_init(const struct job *j, struct run_spec *s, char *const *argv, double wall);
/* The same for student code: sandboxed, in the scratch, with its disk bound. */
void job_spec_student(struct job *j, struct run_spec *s, char *const *argv, double wall);
/* run_sandboxed holding this grading's GPU lock (gpulock.h) for the use given. A timed run of
 * a program that speaks lab_protocol.h's gate (gated: the task harness) starts holding the
 * lock shared and takes it alone at the gate, once its device is open; the others (ncu, the
 * skip probe, compute-sanitizer) hold it as asked from start to end. The time held and waited
 * goes to the result. */
void job_run_gpu(const struct job *j, const struct run_spec *s, struct run_result *res,
                 enum gpu_use use, int gated);
/* The same for a gated run whose gate carries the witness w (runner.h). */
void job_run_witnessed(const struct job *j, const struct run_spec *s, struct run_result *res,
                       enum gpu_use use, struct gate_witness *w);
/* A fresh witness for a gated run: a key drawn now (0 with --no-witness), picks wanted. */
void job_witness_init(const struct job *j, struct gate_witness *w, int picks);
/* Marks the calling thread (beside 1) as one beside the grading's own (a sanitizer's): its
 * waits for the GPU go to gpu_wait_s only, not to the grading's wait_s. Returns the mark it
 * had. */
int job_beside_thread(int beside);
/* Adds a program's wait for the GPU and its time holding it to the result. */
void job_gpu_account(const struct job *j, enum gpu_use use, double wait_s, double held_s);
/* Records a fact of the grading (decide.h): the outcome it stands for and its reason. */
void job_fact(struct job *j, enum grader_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The case named, else the first one with flag set; NULL when none. */
const struct case_result *job_flagged_case(const struct task_result *r, const char *named,
                                           unsigned flag);

/* The class's reference cache key of this task's speed case (grade_check.c), malloc'd. */
char *job_ref_key(const struct job *j, const char *speed_case);

/* The skip fact, from the exercise's own SKIP line (grade.c). */
void job_record_skip(struct job *j);

/* grade.c: a grading's paths and options for task t, and their release (not the result);
 * the sandbox's view of student code (the course's headers and trusted objects, the exercises
 * graded, the scratch directory writable). */
void job_init(struct job *j, const struct task *t, const struct grade_opts *o);
void job_free(struct job *j);
void job_sandbox_view(struct job *j);

/* grade_build.c: the reference, then the exercise, built (1), or the build's fact recorded
 * (0); with o->batch, only this task's part of the build made ahead (grade_batch_build). */
int step_build(struct job *j);

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
/* The witness's commitment checked against the dump of the exercise's run (witness.h): 1, or
 * 0 with the implausible fact recorded. 1 with --no-witness, or with no speed case. */
int witness_dump_checked(struct job *j);

/* grade_san.c: every sanitizer tool of the task started at once (they overlap the
 * verification); san_finish waits for them and, when keep, records their findings (a
 * finding: the sanitizer fact). */
void san_start(struct job *j);
void san_finish(struct job *j, int keep);
/* A CUDA tool: given when not NULL (NULL unless executable), else name on PATH, in
 * $CUDA_HOME/bin, in /usr/local/cuda/bin; malloc'd, NULL when none. */
char *find_cuda_tool(const char *given, const char *name);

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

#endif /* GRADER_GRADE_JOB_H */

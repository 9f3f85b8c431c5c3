/* grade_job.h — one grading in progress (grade_job.c): its paths and options, the bounds and
 * sandbox of the programs it runs, its turns at the GPU, the facts it records. The steps
 * (grade_steps.h) and the driver (grade.c) stand on it; it calls none of them. Not for other
 * modules. */
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
    /* Asked as a gated run's turn is taken (step_run: the first look's bound, grade_run.c):
     * > 0, the run's turn_s from then on. NULL: the spec's turn_s stands. */
    double (*turn_bound)(const struct job *j);
    /* The reference's time as this grading measured it, and when (now_s; 0: never): a second
     * look within REF_OWN_REUSE_S of it takes it rather than a new one. */
    struct ref_time ref_own;
    double ref_own_s;
    /* The exercise's last graded run's witness (witness.h), and whether its look's time was
     * doubted by it: a first look's doubt gets a second look, alone; a second look's, still
     * doubted against a window of the reference's taken right after it, a third (last_look),
     * whose doubt is the verdict. */
    struct gate_witness run_witness;
    int witness_doubt;
    int last_look;
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

/* The reference cache's key (refcache.h) of this task's speed case, malloc'd: the task, the
 * case and the reference binary's hash, so that a cache that gradings of several trees share
 * (GRADER_REFERENCE_CACHE) never gives one course's time to another's reference. */
char *job_ref_key(const struct job *j, const char *speed_case);

/* A grading's paths and options for task t, and their release (not the result);
 * the sandbox's view of student code (the course's headers and trusted objects, the exercises
 * graded, the scratch directory writable). */
void job_init(struct job *j, const struct task *t, const struct grade_opts *o);
void job_free(struct job *j);
void job_sandbox_view(struct job *j);

/* The first line of the file at path (a captured stream) that holds must_contain (NULL: any),
 * else its first non-empty line, at most 300 bytes; malloc'd, "" when none. */
char *job_first_line(const char *path, const char *must_contain);
/* A CUDA tool: given when not NULL (NULL unless executable), else name on PATH, in
 * $CUDA_HOME/bin, in /usr/local/cuda/bin; malloc'd, NULL when none. */
char *find_cuda_tool(const char *given, const char *name);

#endif /* GRADER_GRADE_JOB_H */

/* remote.h — a student's grading on a machine without a GPU, through Slurm.
 *
 * On a cluster's login node the runs go to a GPU node: each task is built and object-checked
 * here (grade_opts.checks_only: a build error or a rejected object is final, no job needed),
 * then the tasks left are graded by ONE Slurm job that runs this grader on a GPU node,
 * `grader --batch --format json --no-slurm ...`, against the same course tree on the shared
 * filesystem. Its JSON report is read back (result_from_json) into the tasks' results, so the
 * interactive course, the saved progress and every report show them as a local grading's.
 * The sandbox, the object check, the verifier and the GPU lock are the node's grader's own.
 *
 * Where and how: the course's grader.ini, section [slurm] (partition, gres, time, account,
 * mem, cpus, queue_limit, arch, enabled), overridden by --slurm-* flags. Used with --slurm, or
 * without it when grader.ini says `enabled = yes`, or `enabled = auto` and no GPU answers here.
 *
 * Bounds: sbatch's refusal is one line; a job still pending after queue_limit seconds
 * (default 600) is cancelled with one line that gives Slurm's reason; a squeue that stops
 * answering for a minute ends the wait; the job's own --time bounds its run. Cancelling
 * (grade_opts.cancel: Ctrl-C, the TUI's x and q) runs scancel and waits until the job has
 * left the queue.
 */
#ifndef GRADER_REMOTE_H
#define GRADER_REMOTE_H

#include <stddef.h>

#include "grade.h"
#include "slurm.h"
#include "util.h"

enum remote_enable { REMOTE_NO, REMOTE_AUTO, REMOTE_YES };

/* The command line's say, kept apart so that it overrides grader.ini whatever the order. */
struct remote_flags {
    int use;                    /* 1 --slurm, -1 --no-slurm, 0 neither */
    const char *partition, *gres, *time, *account;
    double queue_limit_s;       /* 0: not given */
};

struct remote_target {
    struct slurm_opts sl;       /* the job's options (sbatch): partition, gres, time, ... */
    enum remote_enable enabled; /* grader.ini's `enabled` (default no) */
    double queue_limit_s;       /* a job pending longer is cancelled (default 600) */
    double poll_s;              /* squeue every (default 2; LAB_SLURM_POLL_S for tests) */
    const char *arch;           /* ARCH for both sides' builds; NULL: as make detects it */
    char why[160];              /* how the mode was chosen ("--slurm", "no GPU here ...") */
    char note[320];             /* one line for the screen and stderr: where the runs go, why */
    /* Batch's status lines (job queued, running on a node, done), one per change; NULL:
     * none. The TUI gets them through grade_opts.progress as GRADE_STEP_SLURM. */
    void (*status)(void *user, const char *line);
    void *status_user;
    struct strlist own;         /* the strings the options point to */
};

/* The command line's options (getopt_long entries for the front end's table), their codes
 * for remote_flag, and their usage lines. */
enum remote_opt {
    REMOTE_OPT_SLURM = 1000, REMOTE_OPT_NO_SLURM, REMOTE_OPT_PARTITION, REMOTE_OPT_GRES,
    REMOTE_OPT_TIME, REMOTE_OPT_ACCOUNT, REMOTE_OPT_QUEUE_LIMIT,
};
#define REMOTE_LONG_OPTIONS \
    {"slurm", no_argument, NULL, REMOTE_OPT_SLURM}, \
    {"no-slurm", no_argument, NULL, REMOTE_OPT_NO_SLURM}, \
    {"slurm-partition", required_argument, NULL, REMOTE_OPT_PARTITION}, \
    {"slurm-gres", required_argument, NULL, REMOTE_OPT_GRES}, \
    {"slurm-time", required_argument, NULL, REMOTE_OPT_TIME}, \
    {"slurm-account", required_argument, NULL, REMOTE_OPT_ACCOUNT}, \
    {"slurm-queue-limit", required_argument, NULL, REMOTE_OPT_QUEUE_LIMIT}
#define REMOTE_USAGE \
    "  --slurm           grade the runs in a Slurm job on a GPU node (grader.ini [slurm])\n" \
    "  --no-slurm        grade here, whatever grader.ini says\n" \
    "  --slurm-partition P, --slurm-gres G, --slurm-time T, --slurm-account A\n" \
    "                    the job's sbatch options (over grader.ini's)\n" \
    "  --slurm-queue-limit S  cancel a job not started within S seconds (default 600)\n"
/* Takes one option into f: 0, or -1 with err set ("--slurm-queue-limit wants ..."). */
int remote_flag(struct remote_flags *f, int code, const char *value, char *err, size_t errlen);

/* The target for the course at root: grader.ini's [slurm] (none: the defaults), then the
 * flags, then the choice (flags->use, else `enabled`; auto: when doctor_gpu_probe finds no
 * GPU). Returns 1 when the runs go to Slurm, 0 when they stay here, -1 with err set when the
 * file is bad or Slurm's commands are missing. Sets ARCH in the environment when `arch` is
 * given, so that this machine's builds and the job's (which inherits it) agree. */
int remote_setup(struct remote_target *rt, const struct remote_flags *flags, const char *root,
                 char *err, size_t errlen);
void remote_target_free(struct remote_target *rt);
/* remote_setup for the course at o->grade.root; when the runs go to Slurm, o grades through
 * rt (grade.remote, grade_one, remote_note). 0, or -1 with one line on stderr. */
int remote_attach(struct remote_target *rt, const struct remote_flags *flags,
                  struct grader_opts *o);
/* For a front end that writes to stderr (batch, plain text): the note line now, and the
 * job's status lines and errors as "slurm: ..." from now on. */
void remote_announce(struct remote_target *rt);

/* grade_many's counterpart (grade.h): the checks here for every task, then one job for the
 * tasks that passed them; results to done in the order of tasks. o->remote is the target. A
 * job that could not run gives each of its tasks OUTCOME_NOT_RUN with Slurm's line as the
 * reason, and that line goes to the target's status too. */
size_t remote_grade_many(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                         unsigned jobs, grade_done_fn done, void *user);
/* One task so (grader_opts.grade_one, the interactive course's queue). */
struct task_result *remote_grade_task(const struct task *t, const struct grade_opts *o);

/* ---- the job (remote_job.c) */
struct remote_job_state {
    char id[32];
    char state[24];             /* PENDING, RUNNING, ... ; "" once it left the queue */
    char node[64];
    char reason[96];            /* Slurm's reason while pending */
};
/* Grades ids[0..n) (task ids) in one job; *report: the job's JSON report (the caller frees
 * it with cJSON_Delete) on 0. -1: err says why (the job is gone from the queue: cancelled,
 * when it was this grader's to cancel); 1: cancelled through o->cancel. */
struct cJSON;
int remote_job_run(const struct remote_target *rt, const struct grade_opts *o,
                   const char *const *ids, size_t n, const struct task *shown,
                   struct cJSON **report, char *err, size_t errlen);
/* "job 12 queued 3 s (Priority)", "job 12 running on gpu-03 for 40 s" */
void remote_status_line(const struct remote_job_state *s, double queued_s, double running_s,
                        char *line, size_t size);

#endif /* GRADER_REMOTE_H */

/* slurm.h — class grading on a Slurm cluster: the sbatch job-array script, its submission,
 * and the job's progress as squeue reports it.
 *
 * One array task grades a chunk of students (one GPU each, --gres); the students' list and
 * the job's identity live in DIR/.grader/slurm/ so that `grader collect DIR` can report and
 * merge what finished without being told anything again. */
#ifndef GRADER_SLURM_H
#define GRADER_SLURM_H

#include <stddef.h>

struct slurm_opts {
    size_t chunk;             /* students per array task (>= 1) */
    const char *time;         /* --time: minutes or [D-]HH:MM:SS, per array task */
    const char *mem;          /* --mem, e.g. "16G" */
    const char *cpus;         /* --cpus-per-task */
    const char *gres;         /* --gres, e.g. "gpu:1"; "" or "none": no --gres line */
    const char *partition;    /* NULL: the cluster's default */
    const char *account;      /* NULL: the user's default */
    size_t max_parallel;      /* array throttle (%N); 0: Slurm decides */
    const char *extra[16];    /* further #SBATCH options, verbatim (--sbatch-arg) */
    size_t n_extra;
};

void slurm_opts_init(struct slurm_opts *o);

/* Appends s to the buffer as one shell word (single-quoted where needed). */
struct strbuf;
void slurm_shell_word(struct strbuf *b, const char *s);

/* The batch script (malloc'd): #SBATCH lines for an array of n_array tasks, logs in log_dir
 * as <job>_<index>.out, and a body that runs `argv[0] argv[1] ...` from `chdir`. */
char *slurm_script(const struct slurm_opts *o, const char *job_name, size_t n_array,
                   const char *log_dir, const char *chdir, const char *const *argv, size_t argc);

/* Runs `sbatch --parsable SCRIPT`; on success the job id (digits) goes to jobid. On failure
 * err holds sbatch's own message. 0 or -1. */
int slurm_submit(const char *script, char *jobid, size_t jobid_len, char *err, size_t errlen);

/* What squeue says about a job's array tasks right now. */
struct slurm_progress {
    size_t pending, running, completing, other;   /* array tasks in each state */
    int queried;              /* 0: squeue could not be run (counts are zero) */
    char line[256];           /* "2 pending, 3 running" or "none in the queue" */
};
/* squeue -h -j JOBID -o %T: counts by state. The job leaves the queue when it is done. */
void slurm_query(const char *jobid, struct slurm_progress *p);

#endif /* GRADER_SLURM_H */

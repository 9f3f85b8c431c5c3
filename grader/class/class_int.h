/* class_int.h — what the files of `grader class` and `grader collect` share (class.h says
 * what the commands do). One file per job:
 *   roster.c     the students of a class directory
 *   cli.c        options (getopt_long) and the class's absolute paths
 *   resume.c     hashes and seeds: which students are graded already (resumability)
 *   board.c      the GPUs' load, shared by the grading processes: which GPU each task goes to
 *   run.c        what both commands begin with: options, stop signals, the course and class
 *   student.c    one student: the bounded builds and the grading, results.json
 *   pool.c       students in parallel, one child process per slot (--jobs per GPU)
 *   profile_summary.c  the digests' findings per task (--profile)
 *   collect.c    merging results into the gradebook, and the Slurm job's progress
 *   slurm_job.c  the Slurm job: its record, submission, one array task (slurm.c: sbatch)
 *   class.c      `grader class` and `grader collect`
 * Each file calls only files listed above it (and slurm.c, below them all).
 */
#ifndef GRADER_CLASS_INT_H
#define GRADER_CLASS_INT_H

#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "fs.h"
#include "hash.h"
#include "model.h"
#include "slurm.h"
#include "util.h"

#define MAX_GPUS 64
#define MAX_ONLY 256

struct class_opts {
    const char *dir;           /* the class, absolute */
    const char *root;          /* the course, absolute */
    const char *build_dir;     /* the course's pristine build, relative to root or absolute */
    const char *work;          /* scratch builds, one directory per student */
    int gpus[MAX_GPUS];
    size_t n_gpus;
    int jobs;                  /* students at once on each GPU (0 before class_parse_args) */
    int ref_every;             /* gradings a reference time serves (refcache.h) */
    int force;
    int keep_work;
    int course_build;          /* build the course once before the students */
    int no_sandbox;            /* grade even where student code cannot be sandboxed */
    uint64_t seed;
    int sanitize;
    double ncu_share;          /* grade_opts.ncu_share; < 0: its default */
    int profile;               /* --profile: every grading profiled (grader/profile/) */
    double run_timeout, build_timeout;
    double make_timeout;       /* the make that builds the course */
    const char *only[MAX_ONLY];
    size_t n_only;
    int array_task;            /* internal: one Slurm array task */
    int slurm, wait, dry_run;
    int course_given;          /* --course was given (collect prefers the job's course) */
    double interval;           /* --wait: seconds between progress lines */
    struct slurm_opts sl;
};

/* Set by SIGINT / SIGTERM (Slurm's time limit): the engine kills the running child and the
 * student is left ungraded instead of half-graded. */
extern volatile sig_atomic_t class_cancel;   /* set by catch_stop_signals (util.h) */

/* ---------------------------------------------------------------- cli.c */
/* 0: parsed; 2: usage error (one line printed); 1: --help printed. */
int class_parse_args(int argc, char **argv, struct class_opts *o, int collect);
/* Makes dir, root and work absolute; keep[0..2] own the strings. 0 or -1. */
int class_resolve_paths(struct class_opts *o, char **keep);
int parse_u64(const char *s, uint64_t *out);

/* ---------------------------------------------------------------- roster.c */
struct roster {
    char **names;
    size_t n;
};
void roster_free(struct roster *r);
int roster_push(struct roster *r, const char *name);
/* Every directory of DIR not starting with '.', in byte order; 0 or -1. */
int roster_scan(const char *dir, struct roster *r);
char *path_absolute(const char *path);           /* malloc'd */

/* profile_summary.c: per task, the findings of the class's profile digests, from every
 * student's results.json in DIR. */
void class_profile_summary(const char *dir, const struct roster *r, FILE *out);

/* ---------------------------------------------------------------- the run */
struct class_run {
    struct class_opts o;
    char *paths[3];
    struct course *course;
    struct roster roster;      /* every student of the class */
    char **hashes;             /* per roster entry */
    char key[HASH_HEX_LEN + 1];
};
/* run.c: parses the command line into a zeroed run (collect: `grader collect`'s options) and catches
 * SIGINT and SIGTERM into class_cancel. -1 to go on, else the exit status. */
int class_start(int argc, char **argv, int collect, struct class_run *cr);
/* Loads the course and the class. 0 or an exit status (message printed). */
int class_setup(struct class_run *cr);
void class_run_free(struct class_run *cr);

/* ---------------------------------------------------------------- resume.c */
int course_key(const struct class_opts *o, char *hex);
int student_hash(const char *key, const char *class_dir, const char *name, char *hex);
uint64_t student_seed(uint64_t class_seed, const char *name);
char *results_path(const char *class_dir, const char *name);
int results_fresh(const char *class_dir, const char *name, const char *hash);
int hash_students(struct class_run *cr);
/* Indices of the students to grade: selected, and not fresh unless --force. */
size_t *stale_students(const struct class_run *cr, size_t *n);
size_t count_fresh(const struct class_run *cr);

/* ---------------------------------------------------------------- board.c */
/* Tasks in flight per GPU (indices into o->gpus), shared across fork: see board.c. */
struct gpu_board;
struct gpu_board *board_new(size_t n_slots, size_t n_gpus, size_t n_tasks); /* NULL: errno */
void board_free(struct gpu_board *b);
/* The GPU for the course's task `task` as slot's process begins it: the slot's own (slot mod
 * the GPUs) while students wait in the queue; after board_dry, the fewest tasks in flight,
 * ties to the GPU that began this task most. Counted in flight until board_done. */
size_t board_pick(struct gpu_board *b, size_t slot, size_t task);
/* No student is left in the class's queue: from now on tasks spread over the GPUs. */
void board_dry(struct gpu_board *b);
void board_done(struct gpu_board *b, size_t slot, size_t gpu);
/* Tasks slot began on gpu since its last board_clear. */
long board_begun(struct gpu_board *b, size_t slot, size_t gpu);
/* Slot's process ended: nothing of it in flight any more. */
void board_clear(struct gpu_board *b, size_t slot);

/* ---------------------------------------------------------------- student.c */
int build_course(const struct class_opts *o, const struct course *c);
/* 0: results.json written; 1: cancelled (nothing written); -1: could not be written. gpu: the
 * GPU of every task (CUDA_VISIBLE_DEVICES; < 0: as the grader sees them). */
int grade_student(const struct class_opts *o, const struct course *c, const char *name,
                  const char *hash, int gpu);
/* The same with each task on the GPU of o->gpus that board picks as it begins (slot: this
 * process's row of the board). */
int grade_student_on(const struct class_opts *o, const struct course *c, const char *name,
                     const char *hash, struct gpu_board *board, size_t slot);

/* The reference of every task that one of names[0..n_names) handed in, timed on gpu (< 0:
 * the GPUs the grader sees) into its gradings' cache where it has none, grading nothing; none
 * with --reference-every 1. 0, or 1 when cancelled or a grading could not be begun. */
int time_references(const struct class_opts *o, const struct course *c,
                    const char *const *names, size_t n_names, int gpu);

/* ---------------------------------------------------------------- pool.c */
void print_done(const struct class_opts *o, const char *name, size_t k, size_t n, int gpu,
                double secs);
/* Grades todo (indices into the roster); returns how many could not be graded. */
size_t run_pool(const struct class_opts *o, const struct course *c, const struct roster *r,
                char *const *hashes, const size_t *todo, size_t n_todo);

/* ---------------------------------------------------------------- slurm_job.c */
struct job_record {
    char id[32];
    char key[HASH_HEX_LEN + 1];
    size_t chunk;
    struct roster students;    /* the ones the job grades, in array order */
};
/* 0, or -1 when DIR has no readable job record (err says why). root: malloc'd when stored. */
int job_read(const char *class_dir, struct job_record *j, char **root, char *err,
             size_t errlen);
int array_task(struct class_run *cr);
int submit(struct class_run *cr, const size_t *todo, size_t n_todo);

/* ---------------------------------------------------------------- collect.c */
/* Writes DIR/gradebook.csv and junit.xml; *missing: students not "graded"; *skipped: 77 when
 * some task of a graded student was skipped and none was measured (said on stderr), else 0.
 * 0 or -1. */
int write_book(const struct course *c, const char *class_dir, const struct roster *r,
               char *const *hashes, size_t *missing, int *skipped);
/* Progress now: the queue's states and how many of the job's students have fresh results,
 * one line; 1 while the job has array tasks left. */
int progress_line(const struct class_run *cr, const struct job_record *j);
int collect_now(struct class_run *cr, const struct job_record *j);
int wait_and_collect(struct class_run *cr, const struct job_record *j);

#endif /* GRADER_CLASS_INT_H */

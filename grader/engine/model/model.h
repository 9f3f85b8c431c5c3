/* model.h — the grader's results model: course -> lessons -> tasks, and a task's result.
 *
 * The course is read from lessons/<L>/lesson.ini (course.c). Every object below is owned by
 * the course (or, for a task_result, by whoever holds it until task_set_result hands it to a
 * task); consumers — the text and JSON reports, the TUI, class grading — read it through the
 * accessors only and never free what they return. Strings returned are never NULL unless the
 * comment says so; an absent text field reads as "".
 *
 * Lifetimes: a pointer returned by an accessor stays valid until the object it came from is
 * freed, or — for a task's result — until the next task_set_result on that task.
 */
#ifndef GRADER_MODEL_H
#define GRADER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "outcome.h"

/* ======================================================================= outcomes */
/* In precedence order (outcome.h): a task has exactly one. */
#define OUTCOME_ENUM(e, key, words, junit, role, ascii, utf8, meaning) OUTCOME_##e,
enum grader_outcome { OUTCOME_TABLE(OUTCOME_ENUM) OUTCOME_COUNT };
#undef OUTCOME_ENUM
const char *outcome_name(enum grader_outcome o);     /* the words: "build failed" */
const char *outcome_key(enum grader_outcome o);      /* the machine key: "build_failed" */
const char *outcome_meaning(enum grader_outcome o);  /* one line for help and README */
enum junit_kind outcome_junit(enum grader_outcome o);
const char *outcome_glyph(enum grader_outcome o, int utf8);
/* Inverse of outcome_key; OUTCOME_COUNT when unknown. */
enum grader_outcome outcome_from_key(const char *key);

/* ======================================================================= leaf records */
/* Plain data: read the fields directly (through the const pointers the accessors return). */

enum case_status {
    CASE_NOT_RUN = 0,  /* not reached (the run died before it, or it was not selected) */
    CASE_PASS,         /* verified by the solution binary */
    CASE_FAIL,         /* wrong output */
    CASE_ERROR,        /* the case could not be checked (missing dump file, bad header) */
    CASE_SKIP
};
const char *case_status_name(enum case_status s); /* "not run", "pass", "fail", "error", "skip" */

#define CASE_FLAG_SPEED 1u   /* the timed case */
#define CASE_FLAG_SMALL 2u   /* the compute-sanitizer case */
#define CASE_FLAG_SANITIZE 4u /* the speed case's shape at a size compute-sanitizer affords */
#define CASE_FLAG_LARGE 8u    /* more work than that: too large for compute-sanitizer */
#define CASE_MAX_SHOWN 8

struct case_result {
    char *name;                /* "17x31x5" */
    char *dims;                /* from --list: "17 31 5"; "" when unknown */
    unsigned flags;            /* CASE_FLAG_* */
    enum case_status status;   /* the verifier's word, never the student's */
    double time_ms;            /* exercise's median; < 0 when not timed */
    double ref_time_ms;        /* reference solution's median (speed case only); < 0 otherwise */
    double throughput;         /* in unit; < 0 when not timed */
    char *unit;                /* "GFLOP/s", "GB/s", "" */
    long long checked, bad;    /* elements; < 0 when unknown */
    double max_abs_err, max_rel_err; /* < 0 when unknown */
    char *first_mismatch;      /* "[0] (row 0, col 0) expected 1.25 got nan", "" when none */
    size_t n_mismatches;       /* shown mismatches, the first up to CASE_MAX_SHOWN */
    char *mismatches[CASE_MAX_SHOWN];
    char *note;                /* "count 5, expected 7", "dump file missing", "" */
};

/* One compute-sanitizer tool's run on the small case. */
enum sanitizer_status {
    SANITIZER_CLEAN = 0,       /* ran, no error */
    SANITIZER_FINDINGS,        /* ran, reported errors (see findings) */
    SANITIZER_UNAVAILABLE,     /* compute-sanitizer missing or refused the GPU: note says which */
    SANITIZER_TIMED_OUT,
    SANITIZER_FAILED           /* the program itself failed under the tool (note says how) */
};
const char *sanitizer_status_name(enum sanitizer_status s); /* "clean", "findings", ... */

struct sanitizer_run {
    char *tool;                /* "memcheck", "racecheck", "synccheck", "initcheck" */
    enum sanitizer_status status;
    size_t n_findings;
    char *note;                /* "compute-sanitizer not found in PATH or CUDA_HOME/bin", "" */
    char *log_path;            /* its captured output */
};

struct sanitizer_finding {
    char *tool;                /* which tool reported it */
    char *kind;                /* "Invalid __global__ read of size 4 bytes", "Race reported" */
    char *kernel;              /* "matmul_tiled(const float *, ...)" or "" */
    char *file;                /* "exercises/04-tiling/matmul_tiled.cu" or "" */
    int line;                  /* 0 when unknown */
    char *text;                /* the finding's lines as the tool printed them (a few lines) */
};

/* One compiler diagnostic from the build log: "file:line[:col]: error: text". */
struct compiler_diag {
    char *file;
    int line, col;             /* col 0 when absent */
    char *severity;            /* "error", "warning", "note", "fatal error" */
    char *text;
};

/* ======================================================================= course */
struct course;
struct lesson;
struct task;
struct task_result;

/* Load DIR/lessons/<L>/lesson.ini for every lesson directory, sorted by name. Never NULL
 * (NULL only when out of memory): a missing or malformed lesson.ini leaves that lesson with
 * an error (lesson_error) and no tasks, and adds one line to course_errors; other lessons
 * still load. A directory with neither lesson.ini nor a *_harness.cu is not a lesson. */
struct course *course_load(const char *root);
void course_free(struct course *c);

const char *course_root(const struct course *c);  /* absolute */
size_t course_lesson_count(const struct course *c);
const struct lesson *course_lesson(const struct course *c, size_t i);
struct lesson *course_lesson_mut(struct course *c, size_t i);
/* Every task of every lesson, in course order. */
size_t course_task_count(const struct course *c);
const struct task *course_task(const struct course *c, size_t i);
struct task *course_task_mut(struct course *c, size_t i);
/* "03-naive-matmul/matmul_naive", or just "matmul_naive" when unique; NULL when not found. */
struct task *course_find_task(struct course *c, const char *name);
/* The task whose id (a name with a '/') or name is nearest to a name that was not found, by
 * edits of one character: at most 1 when the name's task part (after a '/') is shorter than 6,
 * 2 shorter than 12, else 3. NULL when none is that near. */
const struct task *course_nearest_task(const struct course *c, const char *name);
/* Load errors, one line each: "lessons/05-texture/lesson.ini:12: ..." */
size_t course_error_count(const struct course *c);
const char *course_error(const struct course *c, size_t i);
/* Sums over tasks with a result that is not skipped (skipped tasks count neither way). */
double course_score(const struct course *c);
double course_max_score(const struct course *c);
/* Tasks whose outcome is o. */
size_t course_count_outcome(const struct course *c, enum grader_outcome o);

/* ======================================================================= lesson */
const char *lesson_id(const struct lesson *l);          /* "03-naive-matmul" */
const char *lesson_title(const struct lesson *l);       /* [lesson] title, else the id */
const char *lesson_dir(const struct lesson *l);         /* absolute */
const char *lesson_ini_path(const struct lesson *l);    /* absolute */
/* The notes ([lesson] notes, default README.md), absolute; "" when the file does not exist. */
const char *lesson_notes_path(const struct lesson *l);
/* NULL when lesson.ini loaded cleanly, else the one-line error (also in course_errors). */
const char *lesson_error(const struct lesson *l);
size_t lesson_task_count(const struct lesson *l);
const struct task *lesson_task(const struct lesson *l, size_t i);
struct task *lesson_task_mut(struct lesson *l, size_t i);

/* ======================================================================= task */
const struct lesson *task_lesson(const struct task *t);
const char *task_name(const struct task *t);            /* "matmul_naive" */
const char *task_id(const struct task *t);              /* "03-naive-matmul/matmul_naive" */
const char *task_title(const struct task *t);           /* title, else the name */
double task_weight(const struct task *t);               /* points; default 1 */
const char *task_speed_case(const struct task *t);      /* "" when none: speed not graded */
double task_speed_threshold(const struct task *t);      /* default 0 (any speed passes) */
const char *task_sanitize_case(const struct task *t);   /* "" when none: the harness' small case */
size_t task_sanitizer_count(const struct task *t);      /* memcheck always first */
const char *task_sanitizer(const struct task *t, size_t i);
size_t task_forbid_count(const struct task *t);
const char *task_forbid(const struct task *t, size_t i);
/* lesson.ini allow: names the task may call beyond objcheck's list ("cudaMemAdvise") */
size_t task_allow_count(const struct task *t);
const char *task_allow(const struct task *t, size_t i);
double task_rtol(const struct task *t);                 /* < 0: the harness' own */
double task_atol(const struct task *t);                 /* < 0: the harness' own */
/* lesson.ini work_queues: the GPU's work queues each program of the task opens (its graded
 * run, the reference, a second look, ncu; CUDA_DEVICE_MAX_CONNECTIONS); default 1, more for a
 * task whose streams must overlap. compute-sanitizer's runs open one whatever it says. */
int task_work_queues(const struct task *t);
#define WORK_QUEUES_MAX 32 /* CUDA's own bound */
size_t task_hint_count(const struct task *t);           /* hint.1, hint.2, ... in order */
const char *task_hint(const struct task *t, size_t i);
/* The student's file for the default exercises dir: <root>/exercises/L/T.cu, absolute. */
const char *task_exercise_path(const struct task *t);
/* The last result handed to the task, NULL when it has none. */
const struct task_result *task_result(const struct task *t);
/* Hands r to the task (it frees the previous one); r may be NULL to forget. */
void task_set_result(struct task *t, struct task_result *r);
/* Convenience: the result's outcome / score, OUTCOME_NOT_RUN / 0 without a result. */
enum grader_outcome task_outcome(const struct task *t);
double task_score(const struct task *t);

/* ======================================================================= task result */
/* Scoring: a task scores its full weight when passed and 0 otherwise; max score is the
 * weight, except for skipped tasks (max 0: nothing could be graded). */
enum grader_outcome result_outcome(const struct task_result *r);
double result_score(const struct task_result *r);
double result_max_score(const struct task_result *r);
/* One line saying why ("case 17x31x5: 527 of 527 elements wrong", "forbidden symbol
 * cublasSgemm_v2 (forbid = cublas)", "killed by SIGSEGV"); "" for a plain pass. */
const char *result_reason(const struct task_result *r);
uint64_t result_seed(const struct task_result *r);
/* The grading's own working time: from its start to its end, less wait_s. */
double result_duration_s(const struct task_result *r);
/* The time it waited, from its start to its end: for the GPU's lock (its own thread's, not the
 * sanitizers' beside it), for its turn at the GPU, and between its stages for other tasks
 * (grade_many). duration_s + wait_s is its wall span. */
double result_wait_s(const struct task_result *r);
int64_t result_graded_at(const struct task_result *r);   /* unix time */
/* Content hash (hex) of the exercise file that was graded; "" when unknown. */
const char *result_exercise_hash(const struct task_result *r);
/* The exercise process: exit status (or -1), signal that killed it (or 0), captured stdout
 * and stderr (paths of files under the build dir; "" when not run). */
int result_exit_status(const struct task_result *r);
int result_signal(const struct task_result *r);
const char *result_stdout_path(const struct task_result *r);
const char *result_stderr_path(const struct task_result *r);

size_t result_case_count(const struct task_result *r);
const struct case_result *result_case(const struct task_result *r, size_t i);
size_t result_cases_passed(const struct task_result *r);

/* Speed against the reference measured in the same run: ratio = ref_ms / exercise_ms. */
int result_speed_measured(const struct task_result *r);  /* 0: no speed case or not reached */
const char *result_speed_case(const struct task_result *r);
double result_speed_ratio(const struct task_result *r);
double result_speed_threshold(const struct task_result *r);
double result_time_ms(const struct task_result *r);      /* exercise, speed case */
double result_ref_time_ms(const struct task_result *r);  /* reference, speed case */

/* The speed's cross-check from outside the process (grade_ncu.h): the speed case once more
 * under Nsight Compute, its kernels' time per call against the time the harness reported. */
enum ncu_status {
    NCU_NOT_RUN = 0,           /* not drawn for this grading, or the grading did not reach it */
    NCU_AGREES,
    NCU_DISAGREES,             /* the outcome is "implausible time" */
    NCU_UNAVAILABLE            /* no ncu, counters not permitted, ncu failed: the note says */
};
const char *ncu_status_name(enum ncu_status s); /* "not run", "agrees", "disagrees", "unavailable" */
enum ncu_status result_ncu_status(const struct task_result *r);
double result_ncu_ms(const struct task_result *r);        /* kernels' time per call; < 0 unknown */
const char *result_ncu_note(const struct task_result *r); /* why unavailable; "" otherwise */
/* The profile's collection (grade_opts.profile_args): ncu's output for the exercise's speed
 * case (reference 0) and the reference's (1), NULL when not collected; and why ncu could not
 * run at all (NULL when it ran, or was not asked for). grader/profile/ reads them. */
const char *result_profile_text(const struct task_result *r, int reference);
/* ncu's table of every launch's time on that side (NULL: none: the text's launches are all,
 * each replayed once) */
const char *result_profile_times(const struct task_result *r, int reference);
const char *result_profile_why(const struct task_result *r);

size_t result_sanitizer_run_count(const struct task_result *r);
const struct sanitizer_run *result_sanitizer_run(const struct task_result *r, size_t i);
size_t result_finding_count(const struct task_result *r);
const struct sanitizer_finding *result_finding(const struct task_result *r, size_t i);

/* The build log (path, "" when the build was not run) and the diagnostics parsed from it. */
const char *result_build_log_path(const struct task_result *r);
size_t result_diag_count(const struct task_result *r);
const struct compiler_diag *result_diag(const struct task_result *r, size_t i);
/* Forbidden symbols found in the exercise's object ("cublasSgemm_v2"). */
size_t result_forbidden_count(const struct task_result *r);
const char *result_forbidden(const struct task_result *r, size_t i);

/* Wall seconds each grading step took, by step index (0 build, 1 symbols, 2 list, 3 run,
 * 4 verify, 5 reference, 6 sanitize: enum grade_step of grade.h); 0 for a step not taken. */
#define RESULT_STEPS 8
double result_step_s(const struct task_result *r, int step);
/* "build", "symbols", "list", "run", "verify", "reference", "sanitize" (JSON keys). */
const char *result_step_key(int step);

void task_result_free(struct task_result *r);

#endif /* GRADER_MODEL_H */

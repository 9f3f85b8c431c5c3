/* model_impl.h — the model's representation, for the modules that build it (course.c,
 * grade.c, report.c, state.c). Everyone else reads through model.h's accessors. */
#ifndef GRADER_MODEL_IMPL_H
#define GRADER_MODEL_IMPL_H

#include <stdarg.h>

#include "model.h"
#include "util.h"

struct task_result {
    enum grader_outcome outcome;
    double score, max_score;
    char *reason;
    uint64_t seed;
    double duration_s; /* the grading's own working time: its wall span less wait_s */
    double wait_s;     /* its wall span's time waiting: for the GPU's lock, its turn, other tasks */
    int64_t graded_at;
    char *exercise_hash;
    int exit_status, signal;
    char *stdout_path, *stderr_path;
    struct case_result *cases;
    size_t n_cases;
    int speed_measured;
    char *speed_case;
    double speed_ratio, speed_threshold, time_ms, ref_time_ms;
    double ref_min_ms, ref_max_ms; /* the reference's fastest and slowest repetition */
    int ref_shared;                /* 1: ref_time_ms was measured for an earlier grading */
    double ref_age_s;              /* how long before this grading (0 when its own) */
    double speed_first_ratio;      /* a second look's first ratio (grade.c); < 0: one look */
    double witness_ms;             /* the grader's clock's time a call (witness.h); < 0: none */
    enum ncu_status ncu;           /* the cross-check under the profiler (grade_ncu.c) */
    double ncu_ms;                 /* its kernels' time per call; < 0 when unknown */
    char *ncu_note;                /* why it was unavailable; "" otherwise */
    char *profile_text[2];         /* ncu's output, exercise and reference (grade_profile.c) */
    char *profile_times[2];        /* ncu's table of every launch's time, the same two */
    char *profile_why;             /* why ncu could not profile at all; NULL otherwise */
    struct sanitizer_run *sanitizer_runs;
    size_t n_sanitizer_runs;
    struct sanitizer_finding *findings;
    size_t n_findings;
    char *build_log_path;
    struct compiler_diag *diags;
    size_t n_diags;
    struct strlist forbidden;
    double step_s[RESULT_STEPS];
    /* the GPU: seconds its programs held it for a timed run and shared (gpulock.h), and how
     * long they waited for their turn; the steps' times include all three */
    double gpu_timed_s, gpu_shared_s, gpu_wait_s;
    int gpu_unlocked; /* some run used the GPU without the lock (none given, or not takeable) */
};

struct task {
    struct lesson *lesson;
    char *name, *id, *title;
    double weight;
    char *speed_case;
    double speed_threshold;
    char *sanitize_case;
    struct strlist sanitizers, forbid, allow, hints;
    double rtol, atol;
    int work_queues;
    char *exercise_path;
    struct task_result *result;
};

struct lesson {
    struct course *course;
    char *id, *title, *dir, *ini_path, *notes_path;
    char *error;
    struct task **tasks;
    size_t n_tasks;
};

struct course {
    char *root;
    struct lesson **lessons;
    size_t n_lessons;
    struct task **all_tasks;
    size_t n_all_tasks;
    struct strlist errors;
};



struct task_result *result_new(void);
void result_set_reason(struct task_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append one zeroed record with every number "unknown" (< 0) and every string "". */
struct case_result *result_add_case(struct task_result *r, const char *name);
struct case_result *result_find_case(struct task_result *r, const char *name);
struct sanitizer_run *result_add_sanitizer_run(struct task_result *r, const char *tool);
struct sanitizer_finding *result_add_finding(struct task_result *r);
struct compiler_diag *result_add_diag(struct task_result *r);
void case_result_clear(struct case_result *c);

#endif /* GRADER_MODEL_IMPL_H */

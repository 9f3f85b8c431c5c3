/* model.c — the results model: names, accessors, and the builders of model_impl.h. */
#include "model_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================= names */
#define ROW(e, key, words, junit, role, ascii, utf8, meaning) \
    {key, words, meaning, junit, ascii, utf8},
static const struct {
    const char *key, *words, *meaning;
    enum junit_kind junit;
    const char *ascii, *utf8;
} outcomes[OUTCOME_COUNT] = { OUTCOME_TABLE(ROW) };
#undef ROW

const char *outcome_name(enum grader_outcome o)
{
    return (unsigned)o < OUTCOME_COUNT ? outcomes[o].words : "?";
}

const char *outcome_key(enum grader_outcome o)
{
    return (unsigned)o < OUTCOME_COUNT ? outcomes[o].key : "?";
}

const char *outcome_meaning(enum grader_outcome o)
{
    return (unsigned)o < OUTCOME_COUNT ? outcomes[o].meaning : "";
}

enum junit_kind outcome_junit(enum grader_outcome o)
{
    return (unsigned)o < OUTCOME_COUNT ? outcomes[o].junit : JUNIT_ERROR;
}

const char *outcome_glyph(enum grader_outcome o, int utf8)
{
    if ((unsigned)o >= OUTCOME_COUNT)
        return "?";
    return utf8 ? outcomes[o].utf8 : outcomes[o].ascii;
}

enum grader_outcome outcome_from_key(const char *key)
{
    for (int i = 0; i < OUTCOME_COUNT; i++)
        if (key && strcmp(key, outcomes[i].key) == 0)
            return (enum grader_outcome)i;
    return OUTCOME_COUNT;
}

const char *case_status_name(enum case_status s)
{
    static const char *const names[] = {"not run", "pass", "fail", "error", "skip"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *ncu_status_name(enum ncu_status s)
{
    static const char *const names[] = {"not run", "agrees", "disagrees", "unavailable"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *sanitizer_status_name(enum sanitizer_status s)
{
    static const char *const names[] = {"clean", "findings", "unavailable", "timed out", "failed"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

/* ======================================================================= course */
const char *course_root(const struct course *c) { return c->root; }
size_t course_lesson_count(const struct course *c) { return c->n_lessons; }

const struct lesson *course_lesson(const struct course *c, size_t i)
{
    return i < c->n_lessons ? c->lessons[i] : NULL;
}

struct lesson *course_lesson_mut(struct course *c, size_t i)
{
    return i < c->n_lessons ? c->lessons[i] : NULL;
}

size_t course_task_count(const struct course *c) { return c->n_all_tasks; }

const struct task *course_task(const struct course *c, size_t i)
{
    return i < c->n_all_tasks ? c->all_tasks[i] : NULL;
}

struct task *course_task_mut(struct course *c, size_t i)
{
    return i < c->n_all_tasks ? c->all_tasks[i] : NULL;
}

struct task *course_find_task(struct course *c, const char *name)
{
    struct task *by_name = NULL;
    size_t named = 0;
    for (size_t i = 0; i < c->n_all_tasks; i++) {
        struct task *t = c->all_tasks[i];
        if (strcmp(t->id, name) == 0)
            return t;
        if (strcmp(t->name, name) == 0) {
            by_name = t;
            named++;
        }
    }
    /* A bare task name is accepted only when no two lessons share it. */
    return named == 1 ? by_name : NULL;
}

/* Levenshtein's distance between a and b, counted up to 64 characters of b. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t nb = strlen(b), row[65];
    if (nb > 64)
        nb = 64;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

const struct task *course_nearest_task(const struct course *c, const char *name)
{
    const struct task *best = NULL;
    /* further than that is another word; the lesson part of an id is not the word typed */
    const char *word = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    size_t best_d = SIZE_MAX, len = strlen(word);
    size_t most = len < 6 ? 1 : len < 12 ? 2 : 3;
    for (size_t i = 0; i < c->n_all_tasks; i++) {
        const struct task *t = c->all_tasks[i];
        size_t d = edit_distance(name, strchr(name, '/') ? t->id : t->name);
        if (d < best_d) {
            best_d = d;
            best = t;
        }
    }
    return best_d <= most ? best : NULL;
}

size_t course_error_count(const struct course *c) { return c->errors.n; }

const char *course_error(const struct course *c, size_t i)
{
    return i < c->errors.n ? c->errors.v[i] : NULL;
}

double course_score(const struct course *c)
{
    double s = 0;
    for (size_t i = 0; i < c->n_all_tasks; i++)
        s += task_score(c->all_tasks[i]);
    return s;
}

double course_max_score(const struct course *c)
{
    double s = 0;
    for (size_t i = 0; i < c->n_all_tasks; i++) {
        const struct task *t = c->all_tasks[i];
        s += t->result ? t->result->max_score : t->weight;
    }
    return s;
}

size_t course_count_outcome(const struct course *c, enum grader_outcome o)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_all_tasks; i++)
        n += task_outcome(c->all_tasks[i]) == o;
    return n;
}

/* ======================================================================= lesson */
const char *lesson_id(const struct lesson *l) { return l->id; }
const char *lesson_title(const struct lesson *l) { return l->title; }
const char *lesson_dir(const struct lesson *l) { return l->dir; }
const char *lesson_ini_path(const struct lesson *l) { return l->ini_path; }
const char *lesson_notes_path(const struct lesson *l) { return l->notes_path; }
const char *lesson_error(const struct lesson *l) { return l->error; }
size_t lesson_task_count(const struct lesson *l) { return l->n_tasks; }

const struct task *lesson_task(const struct lesson *l, size_t i)
{
    return i < l->n_tasks ? l->tasks[i] : NULL;
}

struct task *lesson_task_mut(struct lesson *l, size_t i)
{
    return i < l->n_tasks ? l->tasks[i] : NULL;
}

/* ======================================================================= task */
const struct lesson *task_lesson(const struct task *t) { return t->lesson; }
const char *task_name(const struct task *t) { return t->name; }
const char *task_id(const struct task *t) { return t->id; }
const char *task_title(const struct task *t) { return t->title; }
double task_weight(const struct task *t) { return t->weight; }
const char *task_speed_case(const struct task *t) { return t->speed_case; }
double task_speed_threshold(const struct task *t) { return t->speed_threshold; }
const char *task_sanitize_case(const struct task *t) { return t->sanitize_case; }
size_t task_sanitizer_count(const struct task *t) { return t->sanitizers.n; }
size_t task_forbid_count(const struct task *t) { return t->forbid.n; }
size_t task_allow_count(const struct task *t) { return t->allow.n; }
size_t task_hint_count(const struct task *t) { return t->hints.n; }
double task_rtol(const struct task *t) { return t->rtol; }
double task_atol(const struct task *t) { return t->atol; }
int task_work_queues(const struct task *t) { return t->work_queues; }
const char *task_exercise_path(const struct task *t) { return t->exercise_path; }
const struct task_result *task_result(const struct task *t) { return t->result; }

const char *task_sanitizer(const struct task *t, size_t i)
{
    return i < t->sanitizers.n ? t->sanitizers.v[i] : NULL;
}

const char *task_forbid(const struct task *t, size_t i)
{
    return i < t->forbid.n ? t->forbid.v[i] : NULL;
}

const char *task_allow(const struct task *t, size_t i)
{
    return i < t->allow.n ? t->allow.v[i] : NULL;
}

const char *task_hint(const struct task *t, size_t i)
{
    return i < t->hints.n ? t->hints.v[i] : NULL;
}

void task_set_result(struct task *t, struct task_result *r)
{
    if (t->result == r)
        return;
    task_result_free(t->result);
    t->result = r;
}

enum grader_outcome task_outcome(const struct task *t)
{
    return t->result ? t->result->outcome : OUTCOME_NOT_RUN;
}

double task_score(const struct task *t)
{
    return t->result ? t->result->score : 0;
}

/* ======================================================================= task result */
enum grader_outcome result_outcome(const struct task_result *r) { return r->outcome; }
double result_score(const struct task_result *r) { return r->score; }
double result_max_score(const struct task_result *r) { return r->max_score; }
const char *result_reason(const struct task_result *r) { return r->reason; }
uint64_t result_seed(const struct task_result *r) { return r->seed; }
double result_duration_s(const struct task_result *r) { return r->duration_s; }
double result_wait_s(const struct task_result *r) { return r->wait_s; }
int64_t result_graded_at(const struct task_result *r) { return r->graded_at; }
const char *result_exercise_hash(const struct task_result *r) { return r->exercise_hash; }
int result_exit_status(const struct task_result *r) { return r->exit_status; }
int result_signal(const struct task_result *r) { return r->signal; }
const char *result_stdout_path(const struct task_result *r) { return r->stdout_path; }
const char *result_stderr_path(const struct task_result *r) { return r->stderr_path; }
size_t result_case_count(const struct task_result *r) { return r->n_cases; }
int result_speed_measured(const struct task_result *r) { return r->speed_measured; }
const char *result_speed_case(const struct task_result *r) { return r->speed_case; }
double result_speed_ratio(const struct task_result *r) { return r->speed_ratio; }
double result_speed_threshold(const struct task_result *r) { return r->speed_threshold; }
double result_time_ms(const struct task_result *r) { return r->time_ms; }
double result_ref_time_ms(const struct task_result *r) { return r->ref_time_ms; }
enum ncu_status result_ncu_status(const struct task_result *r) { return r->ncu; }
double result_ncu_ms(const struct task_result *r) { return r->ncu_ms; }
const char *result_ncu_note(const struct task_result *r) { return r->ncu_note; }
const char *result_profile_text(const struct task_result *r, int reference)
{
    return r->profile_text[reference != 0];
}

const char *result_profile_times(const struct task_result *r, int reference)
{
    return r->profile_times[reference != 0];
}
const char *result_profile_why(const struct task_result *r) { return r->profile_why; }
size_t result_sanitizer_run_count(const struct task_result *r) { return r->n_sanitizer_runs; }
size_t result_finding_count(const struct task_result *r) { return r->n_findings; }
const char *result_build_log_path(const struct task_result *r) { return r->build_log_path; }
size_t result_diag_count(const struct task_result *r) { return r->n_diags; }
size_t result_forbidden_count(const struct task_result *r) { return r->forbidden.n; }

double result_step_s(const struct task_result *r, int step)
{
    return step >= 0 && step < RESULT_STEPS ? r->step_s[step] : 0;
}

const char *result_step_key(int step)
{
    static const char *const keys[RESULT_STEPS] = {"build", "symbols", "list", "run",
                                                   "verify", "reference", "sanitize",
                                                   "profile"};
    return step >= 0 && step < RESULT_STEPS ? keys[step] : "?";
}

const struct case_result *result_case(const struct task_result *r, size_t i)
{
    return i < r->n_cases ? &r->cases[i] : NULL;
}

size_t result_cases_passed(const struct task_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_cases; i++)
        n += r->cases[i].status == CASE_PASS;
    return n;
}

const struct sanitizer_run *result_sanitizer_run(const struct task_result *r, size_t i)
{
    return i < r->n_sanitizer_runs ? &r->sanitizer_runs[i] : NULL;
}

const struct sanitizer_finding *result_finding(const struct task_result *r, size_t i)
{
    return i < r->n_findings ? &r->findings[i] : NULL;
}

const struct compiler_diag *result_diag(const struct task_result *r, size_t i)
{
    return i < r->n_diags ? &r->diags[i] : NULL;
}

const char *result_forbidden(const struct task_result *r, size_t i)
{
    return i < r->forbidden.n ? r->forbidden.v[i] : NULL;
}

/* ======================================================================= builders */
struct task_result *result_new(void)
{
    struct task_result *r = xcalloc(1, sizeof *r);
    r->reason = xstrdup("");
    r->exercise_hash = xstrdup("");
    r->stdout_path = xstrdup("");
    r->stderr_path = xstrdup("");
    r->speed_case = xstrdup("");
    r->build_log_path = xstrdup("");
    r->ncu_note = xstrdup("");
    r->exit_status = -1;
    r->time_ms = r->ref_time_ms = r->ref_min_ms = r->ref_max_ms = r->ncu_ms = -1;
    r->speed_first_ratio = -1;
    r->witness_ms = -1;
    return r;
}

void result_set_reason(struct task_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    free(r->reason);
    r->reason = s;
}

struct case_result *result_add_case(struct task_result *r, const char *name)
{
    r->cases = xrealloc(r->cases, (r->n_cases + 1) * sizeof *r->cases);
    struct case_result *c = &r->cases[r->n_cases++];
    memset(c, 0, sizeof *c);
    c->name = xstrdup(name);
    c->dims = xstrdup("");
    c->unit = xstrdup("");
    c->first_mismatch = xstrdup("");
    c->note = xstrdup("");
    c->time_ms = c->ref_time_ms = c->throughput = -1;
    c->checked = c->bad = -1;
    c->max_abs_err = c->max_rel_err = -1;
    return c;
}

struct case_result *result_find_case(struct task_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_cases; i++)
        if (strcmp(r->cases[i].name, name) == 0)
            return &r->cases[i];
    return NULL;
}

struct sanitizer_run *result_add_sanitizer_run(struct task_result *r, const char *tool)
{
    r->sanitizer_runs = xrealloc(r->sanitizer_runs,
                                 (r->n_sanitizer_runs + 1) * sizeof *r->sanitizer_runs);
    struct sanitizer_run *s = &r->sanitizer_runs[r->n_sanitizer_runs++];
    memset(s, 0, sizeof *s);
    s->tool = xstrdup(tool);
    s->note = xstrdup("");
    s->log_path = xstrdup("");
    return s;
}

struct sanitizer_finding *result_add_finding(struct task_result *r)
{
    r->findings = xrealloc(r->findings, (r->n_findings + 1) * sizeof *r->findings);
    struct sanitizer_finding *f = &r->findings[r->n_findings++];
    memset(f, 0, sizeof *f);
    f->tool = xstrdup("");
    f->kind = xstrdup("");
    f->kernel = xstrdup("");
    f->file = xstrdup("");
    f->text = xstrdup("");
    return f;
}

struct compiler_diag *result_add_diag(struct task_result *r)
{
    r->diags = xrealloc(r->diags, (r->n_diags + 1) * sizeof *r->diags);
    struct compiler_diag *d = &r->diags[r->n_diags++];
    memset(d, 0, sizeof *d);
    d->file = xstrdup("");
    d->severity = xstrdup("");
    d->text = xstrdup("");
    return d;
}

void case_result_clear(struct case_result *c)
{
    free(c->name);
    free(c->dims);
    free(c->unit);
    free(c->first_mismatch);
    free(c->note);
    for (size_t i = 0; i < c->n_mismatches; i++)
        free(c->mismatches[i]);
    memset(c, 0, sizeof *c);
}

void task_result_free(struct task_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_cases; i++)
        case_result_clear(&r->cases[i]);
    free(r->cases);
    for (size_t i = 0; i < r->n_sanitizer_runs; i++) {
        free(r->sanitizer_runs[i].tool);
        free(r->sanitizer_runs[i].note);
        free(r->sanitizer_runs[i].log_path);
    }
    free(r->sanitizer_runs);
    for (size_t i = 0; i < r->n_findings; i++) {
        struct sanitizer_finding *f = &r->findings[i];
        free(f->tool);
        free(f->kind);
        free(f->kernel);
        free(f->file);
        free(f->text);
    }
    free(r->findings);
    for (size_t i = 0; i < r->n_diags; i++) {
        free(r->diags[i].file);
        free(r->diags[i].severity);
        free(r->diags[i].text);
    }
    free(r->diags);
    strlist_free(&r->forbidden);
    free(r->reason);
    free(r->exercise_hash);
    free(r->stdout_path);
    free(r->stderr_path);
    free(r->speed_case);
    free(r->build_log_path);
    free(r->ncu_note);
    free(r->profile_text[0]);
    free(r->profile_text[1]);
    free(r->profile_times[0]);
    free(r->profile_times[1]);
    free(r->profile_why);
    free(r);
}

/* result_json.c — a task's result as JSON and back (result_json.h). */
#include "result_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"

/* ======================================================================= JSON */
/* Unknown numbers (< 0 by the model's convention) are null. */
static void add_num(cJSON *o, const char *key, double v)
{
    if (v < 0 || !isfinite(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static cJSON *case_json(const struct case_result *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddStringToObject(o, "dims", c->dims);
    cJSON_AddBoolToObject(o, "speed", (c->flags & CASE_FLAG_SPEED) != 0);
    cJSON_AddBoolToObject(o, "small", (c->flags & CASE_FLAG_SMALL) != 0);
    cJSON_AddStringToObject(o, "status", case_status_name(c->status));
    add_num(o, "time_ms", c->time_ms);
    add_num(o, "ref_time_ms", c->ref_time_ms);
    add_num(o, "throughput", c->throughput);
    cJSON_AddStringToObject(o, "unit", c->unit);
    add_num(o, "checked", (double)c->checked);
    add_num(o, "bad", (double)c->bad);
    add_num(o, "max_abs_err", c->max_abs_err);
    add_num(o, "max_rel_err", c->max_rel_err);
    cJSON_AddStringToObject(o, "first_mismatch", c->first_mismatch);
    cJSON *m = cJSON_AddArrayToObject(o, "mismatches");
    for (size_t i = 0; i < c->n_mismatches; i++)
        cJSON_AddItemToArray(m, cJSON_CreateString(c->mismatches[i]));
    cJSON_AddStringToObject(o, "note", c->note);
    return o;
}

/* speed.ncu: "agrees", "disagrees", "not run" or "unavailable: why"; speed.ncu_ms. */
static void ncu_json(cJSON *sp, const struct task_result *r)
{
    char *word = r->ncu == NCU_UNAVAILABLE && r->ncu_note[0]
                     ? xasprintf("%s: %s", ncu_status_name(r->ncu), r->ncu_note)
                     : xstrdup(ncu_status_name(r->ncu));
    cJSON_AddStringToObject(sp, "ncu", word);
    free(word);
    add_num(sp, "ncu_ms", r->ncu_ms);
}

cJSON *result_to_json(const struct task_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "outcome", outcome_key(r->outcome));
    cJSON_AddStringToObject(o, "outcome_text", outcome_name(r->outcome));
    cJSON_AddNumberToObject(o, "score", r->score);
    cJSON_AddNumberToObject(o, "max_score", r->max_score);
    cJSON_AddStringToObject(o, "reason", r->reason);
    /* the digits themselves: a JSON number read as a double loses seeds above 2^53 */
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
    cJSON_AddRawToObject(o, "seed", seed);
    cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
    cJSON_AddNumberToObject(o, "wait_s", r->wait_s);
    cJSON_AddNumberToObject(o, "graded_at", (double)r->graded_at);
    cJSON_AddStringToObject(o, "exercise_hash", r->exercise_hash);
    if (r->exit_status < 0)
        cJSON_AddNullToObject(o, "exit_status");
    else
        cJSON_AddNumberToObject(o, "exit_status", r->exit_status);
    cJSON_AddNumberToObject(o, "signal", r->signal);
    cJSON_AddStringToObject(o, "stdout", r->stdout_path);
    cJSON_AddStringToObject(o, "stderr", r->stderr_path);
    cJSON_AddStringToObject(o, "build_log", r->build_log_path);

    cJSON *steps = cJSON_AddObjectToObject(o, "steps");
    for (int i = 0; i < RESULT_STEPS; i++)
        cJSON_AddNumberToObject(steps, result_step_key(i), r->step_s[i]);

    cJSON *gpu = cJSON_AddObjectToObject(o, "gpu");
    cJSON_AddNumberToObject(gpu, "timed_s", r->gpu_timed_s);
    cJSON_AddNumberToObject(gpu, "shared_s", r->gpu_shared_s);
    cJSON_AddNumberToObject(gpu, "wait_s", r->gpu_wait_s);
    cJSON_AddBoolToObject(gpu, "unlocked", r->gpu_unlocked);

    cJSON *sp = cJSON_AddObjectToObject(o, "speed");
    cJSON_AddStringToObject(sp, "case", r->speed_case);
    cJSON_AddBoolToObject(sp, "measured", r->speed_measured);
    add_num(sp, "ratio", r->speed_measured ? r->speed_ratio : -1);
    cJSON_AddNumberToObject(sp, "threshold", r->speed_threshold);
    add_num(sp, "time_ms", r->time_ms);
    add_num(sp, "ref_time_ms", r->ref_time_ms);
    add_num(sp, "ref_min_ms", r->ref_min_ms);
    add_num(sp, "ref_max_ms", r->ref_max_ms);
    cJSON_AddBoolToObject(sp, "ref_shared", r->ref_shared);
    cJSON_AddNumberToObject(sp, "ref_age_s", r->ref_age_s);
    add_num(sp, "first_ratio", r->speed_first_ratio);
    add_num(sp, "witness_ms", r->witness_ms);
    ncu_json(sp, r);

    cJSON *cases = cJSON_AddArrayToObject(o, "cases");
    for (size_t i = 0; i < r->n_cases; i++)
        cJSON_AddItemToArray(cases, case_json(&r->cases[i]));

    cJSON *runs = cJSON_AddArrayToObject(o, "sanitizers");
    for (size_t i = 0; i < r->n_sanitizer_runs; i++) {
        const struct sanitizer_run *s = &r->sanitizer_runs[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "tool", s->tool);
        cJSON_AddStringToObject(x, "status", sanitizer_status_name(s->status));
        cJSON_AddNumberToObject(x, "findings", (double)s->n_findings);
        cJSON_AddStringToObject(x, "note", s->note);
        cJSON_AddStringToObject(x, "log", s->log_path);
        cJSON_AddItemToArray(runs, x);
    }
    cJSON *fs = cJSON_AddArrayToObject(o, "findings");
    for (size_t i = 0; i < r->n_findings; i++) {
        const struct sanitizer_finding *f = &r->findings[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "tool", f->tool);
        cJSON_AddStringToObject(x, "kind", f->kind);
        cJSON_AddStringToObject(x, "kernel", f->kernel);
        cJSON_AddStringToObject(x, "file", f->file);
        cJSON_AddNumberToObject(x, "line", f->line);
        cJSON_AddStringToObject(x, "text", f->text);
        cJSON_AddItemToArray(fs, x);
    }
    cJSON *ds = cJSON_AddArrayToObject(o, "diagnostics");
    for (size_t i = 0; i < r->n_diags; i++) {
        const struct compiler_diag *d = &r->diags[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "file", d->file);
        cJSON_AddNumberToObject(x, "line", d->line);
        cJSON_AddNumberToObject(x, "col", d->col);
        cJSON_AddStringToObject(x, "severity", d->severity);
        cJSON_AddStringToObject(x, "text", d->text);
        cJSON_AddItemToArray(ds, x);
    }
    cJSON *fb = cJSON_AddArrayToObject(o, "forbidden");
    for (size_t i = 0; i < r->forbidden.n; i++)
        cJSON_AddItemToArray(fb, cJSON_CreateString(r->forbidden.v[i]));
    return o;
}

cJSON *task_to_json(const struct task *t)
{
    const struct task_result *r = task_result(t);
    cJSON *o = r ? result_to_json(r) : cJSON_CreateObject();
    /* Identity first: prepend by rebuilding the object in order. */
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "id", task_id(t));
    cJSON_AddStringToObject(out, "lesson", lesson_id(task_lesson(t)));
    cJSON_AddStringToObject(out, "task", task_name(t));
    cJSON_AddStringToObject(out, "title", task_title(t));
    cJSON_AddNumberToObject(out, "weight", task_weight(t));
    if (!r) {
        cJSON_AddStringToObject(out, "outcome", outcome_key(OUTCOME_NOT_RUN));
        cJSON_AddStringToObject(out, "outcome_text", outcome_name(OUTCOME_NOT_RUN));
        cJSON_AddNumberToObject(out, "score", 0);
        cJSON_AddNumberToObject(out, "max_score", task_weight(t));
    }
    while (o->child) {
        cJSON *item = cJSON_DetachItemViaPointer(o, o->child);
        cJSON_AddItemToObject(out, item->string, item);
    }
    cJSON_Delete(o);
    return out;
}

/* ----------------------------------------------------------------------- JSON -> result */
static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* A seed written as its digits (exact), or as a number another program wrote (exact up to 2^53). */
static uint64_t jseed(const cJSON *o)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "seed");
    if ((cJSON_IsRaw(v) || cJSON_IsString(v)) && v->valuestring)
        return strtoull(v->valuestring, NULL, 10);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

static const cJSON *jarr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsArray(v) ? v : NULL;
}

static enum case_status case_status_from(const char *s)
{
    for (int i = CASE_NOT_RUN; i <= CASE_SKIP; i++)
        if (strcmp(s, case_status_name((enum case_status)i)) == 0)
            return (enum case_status)i;
    return CASE_NOT_RUN;
}

static enum sanitizer_status sanitizer_status_from(const char *s)
{
    for (int i = SANITIZER_CLEAN; i <= SANITIZER_FAILED; i++)
        if (strcmp(s, sanitizer_status_name((enum sanitizer_status)i)) == 0)
            return (enum sanitizer_status)i;
    return SANITIZER_FAILED;
}

static void speed_from_json(struct task_result *r, const cJSON *sp)
{
    if (!cJSON_IsObject(sp))
        return;
    set_str(&r->speed_case, jstr(sp, "case"));
    r->speed_measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sp, "measured"));
    r->speed_ratio = fmax(0, jnum(sp, "ratio"));
    r->speed_threshold = fmax(0, jnum(sp, "threshold"));
    r->time_ms = jnum(sp, "time_ms");
    r->ref_time_ms = jnum(sp, "ref_time_ms");
    r->ref_min_ms = jnum(sp, "ref_min_ms");
    r->ref_max_ms = jnum(sp, "ref_max_ms");
    r->ref_shared = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sp, "ref_shared"));
    r->ref_age_s = fmax(0, jnum(sp, "ref_age_s"));
    r->speed_first_ratio = jnum(sp, "first_ratio");
    r->witness_ms = jnum(sp, "witness_ms");
    r->ncu_ms = jnum(sp, "ncu_ms");
    const char *ncu = jstr(sp, "ncu");
    for (int i = NCU_NOT_RUN; i <= NCU_UNAVAILABLE; i++) {
        const char *name = ncu_status_name((enum ncu_status)i);
        size_t len = strlen(name);
        if (strncmp(ncu, name, len) == 0 && (!ncu[len] || strncmp(ncu + len, ": ", 2) == 0)) {
            r->ncu = (enum ncu_status)i;
            set_str(&r->ncu_note, ncu[len] ? ncu + len + 2 : "");
        }
    }
}

struct task_result *result_from_json(const cJSON *j)
{
    enum grader_outcome oc = outcome_from_key(jstr(j, "outcome"));
    if (!cJSON_IsObject(j) || oc == OUTCOME_COUNT)
        return NULL;
    struct task_result *r = result_new();
    r->outcome = oc;
    r->score = fmax(0, jnum(j, "score"));
    r->max_score = fmax(0, jnum(j, "max_score"));
    set_str(&r->reason, jstr(j, "reason"));
    r->seed = jseed(j);
    r->duration_s = fmax(0, jnum(j, "duration_s"));
    r->wait_s = fmax(0, jnum(j, "wait_s"));
    r->graded_at = (int64_t)fmax(0, jnum(j, "graded_at"));
    set_str(&r->exercise_hash, jstr(j, "exercise_hash"));
    r->exit_status = (int)jnum(j, "exit_status");
    r->signal = (int)fmax(0, jnum(j, "signal"));
    set_str(&r->stdout_path, jstr(j, "stdout"));
    set_str(&r->stderr_path, jstr(j, "stderr"));
    set_str(&r->build_log_path, jstr(j, "build_log"));
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(j, "steps");
    for (int i = 0; i < RESULT_STEPS && cJSON_IsObject(steps); i++)
        r->step_s[i] = fmax(0, jnum(steps, result_step_key(i)));
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(j, "gpu");
    if (cJSON_IsObject(gpu)) {
        r->gpu_timed_s = fmax(0, jnum(gpu, "timed_s"));
        r->gpu_shared_s = fmax(0, jnum(gpu, "shared_s"));
        r->gpu_wait_s = fmax(0, jnum(gpu, "wait_s"));
        r->gpu_unlocked = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(gpu, "unlocked"));
    }
    speed_from_json(r, cJSON_GetObjectItemCaseSensitive(j, "speed"));
    const cJSON *x;
    cJSON_ArrayForEach(x, jarr(j, "cases")) {
        struct case_result *c = result_add_case(r, jstr(x, "name"));
        set_str(&c->dims, jstr(x, "dims"));
        c->flags = (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "speed")) ? CASE_FLAG_SPEED : 0u) |
                   (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "small")) ? CASE_FLAG_SMALL : 0u);
        c->status = case_status_from(jstr(x, "status"));
        c->time_ms = jnum(x, "time_ms");
        c->ref_time_ms = jnum(x, "ref_time_ms");
        c->throughput = jnum(x, "throughput");
        set_str(&c->unit, jstr(x, "unit"));
        c->checked = (long long)jnum(x, "checked");
        c->bad = (long long)jnum(x, "bad");
        c->max_abs_err = jnum(x, "max_abs_err");
        c->max_rel_err = jnum(x, "max_rel_err");
        set_str(&c->first_mismatch, jstr(x, "first_mismatch"));
        const cJSON *m;
        cJSON_ArrayForEach(m, jarr(x, "mismatches")) {
            if (cJSON_IsString(m) && c->n_mismatches < CASE_MAX_SHOWN)
                c->mismatches[c->n_mismatches++] = xstrdup(m->valuestring);
        }
        set_str(&c->note, jstr(x, "note"));
    }
    cJSON_ArrayForEach(x, jarr(j, "sanitizers")) {
        struct sanitizer_run *s = result_add_sanitizer_run(r, jstr(x, "tool"));
        s->status = sanitizer_status_from(jstr(x, "status"));
        s->n_findings = (size_t)fmax(0, jnum(x, "findings"));
        set_str(&s->note, jstr(x, "note"));
        set_str(&s->log_path, jstr(x, "log"));
    }
    cJSON_ArrayForEach(x, jarr(j, "findings")) {
        struct sanitizer_finding *f = result_add_finding(r);
        set_str(&f->tool, jstr(x, "tool"));
        set_str(&f->kind, jstr(x, "kind"));
        set_str(&f->kernel, jstr(x, "kernel"));
        set_str(&f->file, jstr(x, "file"));
        f->line = (int)fmax(0, jnum(x, "line"));
        set_str(&f->text, jstr(x, "text"));
    }
    cJSON_ArrayForEach(x, jarr(j, "diagnostics")) {
        struct compiler_diag *d = result_add_diag(r);
        set_str(&d->file, jstr(x, "file"));
        d->line = (int)fmax(0, jnum(x, "line"));
        d->col = (int)fmax(0, jnum(x, "col"));
        set_str(&d->severity, jstr(x, "severity"));
        set_str(&d->text, jstr(x, "text"));
    }
    cJSON_ArrayForEach(x, jarr(j, "forbidden")) {
        if (cJSON_IsString(x))
            strlist_push(&r->forbidden, x->valuestring);
    }
    return r;
}


/* report.c — results as text, JSON, CSV, JUnit XML and Gradescope results.json (report.h). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"

int report_format_parse(const char *name, enum report_format *f)
{
    static const char *const names[] = {"text", "json", "csv", "junit", "gradescope"};
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0) {
            *f = (enum report_format)i;
            return 0;
        }
    return -1;
}

static int included(const struct task *t, int only_graded)
{
    return !only_graded || task_result(t) != NULL;
}

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

cJSON *report_result_json(const struct task_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "outcome", outcome_key(r->outcome));
    cJSON_AddStringToObject(o, "outcome_text", outcome_name(r->outcome));
    cJSON_AddNumberToObject(o, "score", r->score);
    cJSON_AddNumberToObject(o, "max_score", r->max_score);
    cJSON_AddStringToObject(o, "reason", r->reason);
    cJSON_AddNumberToObject(o, "seed", (double)r->seed);
    cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
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

    cJSON *sp = cJSON_AddObjectToObject(o, "speed");
    cJSON_AddStringToObject(sp, "case", r->speed_case);
    cJSON_AddBoolToObject(sp, "measured", r->speed_measured);
    add_num(sp, "ratio", r->speed_measured ? r->speed_ratio : -1);
    cJSON_AddNumberToObject(sp, "threshold", r->speed_threshold);
    add_num(sp, "time_ms", r->time_ms);
    add_num(sp, "ref_time_ms", r->ref_time_ms);

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

cJSON *report_task_json(const struct task *t)
{
    const struct task_result *r = task_result(t);
    cJSON *o = r ? report_result_json(r) : cJSON_CreateObject();
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

struct task_result *report_result_from_json(const cJSON *j)
{
    enum grader_outcome oc = outcome_from_key(jstr(j, "outcome"));
    if (!cJSON_IsObject(j) || oc == OUTCOME_COUNT)
        return NULL;
    struct task_result *r = result_new();
    r->outcome = oc;
    r->score = fmax(0, jnum(j, "score"));
    r->max_score = fmax(0, jnum(j, "max_score"));
    set_str(&r->reason, jstr(j, "reason"));
    r->seed = (uint64_t)fmax(0, jnum(j, "seed"));
    r->duration_s = fmax(0, jnum(j, "duration_s"));
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
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "speed");
    if (cJSON_IsObject(sp)) {
        set_str(&r->speed_case, jstr(sp, "case"));
        r->speed_measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sp, "measured"));
        r->speed_ratio = fmax(0, jnum(sp, "ratio"));
        r->speed_threshold = fmax(0, jnum(sp, "threshold"));
        r->time_ms = jnum(sp, "time_ms");
        r->ref_time_ms = jnum(sp, "ref_time_ms");
    }
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

static int all_passed(const struct course *c, int only_graded)
{
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!included(t, only_graded))
            continue;
        enum grader_outcome o = task_outcome(t);
        if (o != OUTCOME_PASSED && o != OUTCOME_SKIPPED)
            return 0;
    }
    return 1;
}

static int write_json_doc(cJSON *doc, FILE *out)
{
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text)
        return -1;
    int rc = fputs(text, out) < 0 || fputc('\n', out) == EOF ? -1 : 0;
    cJSON_free(text);
    return rc;
}

static int write_json(const struct course *c, int only_graded, FILE *out)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "format", 1);
    cJSON_AddStringToObject(doc, "root", course_root(c));
    double score = 0, max = 0;
    cJSON *tasks = cJSON_CreateArray();
    cJSON *counts = cJSON_CreateObject();
    size_t n[OUTCOME_COUNT] = {0};
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!included(t, only_graded))
            continue;
        const struct task_result *r = task_result(t);
        score += r ? r->score : 0;
        max += r ? r->max_score : task_weight(t);
        n[task_outcome(t)]++;
        cJSON_AddItemToArray(tasks, report_task_json(t));
    }
    for (int o = 0; o < OUTCOME_COUNT; o++)
        cJSON_AddNumberToObject(counts, outcome_key((enum grader_outcome)o), (double)n[o]);
    cJSON_AddNumberToObject(doc, "score", score);
    cJSON_AddNumberToObject(doc, "max_score", max);
    cJSON_AddBoolToObject(doc, "all_passed", all_passed(c, only_graded));
    cJSON_AddItemToObject(doc, "counts", counts);
    cJSON *errors = cJSON_AddArrayToObject(doc, "errors");
    for (size_t i = 0; i < course_error_count(c); i++)
        cJSON_AddItemToArray(errors, cJSON_CreateString(course_error(c, i)));
    cJSON_AddItemToObject(doc, "tasks", tasks);
    return write_json_doc(doc, out);
}

/* ======================================================================= Gradescope */
/* One task's story for a reader of the Gradescope page. */
static char *task_output(const struct task *t)
{
    const struct task_result *r = task_result(t);
    if (!r)
        return xstrdup("not graded");
    char *s = xasprintf("%s%s%s (seed %llu)", outcome_name(r->outcome), r->reason[0] ? ": " : "",
                        r->reason, (unsigned long long)r->seed);
    for (size_t i = 0; i < r->n_cases; i++) {
        const struct case_result *c = &r->cases[i];
        char *n = xasprintf("%s\n  %-24s %s%s%s", s, c->name, case_status_name(c->status),
                            c->first_mismatch[0] ? "  first mismatch " : "", c->first_mismatch);
        free(s);
        s = n;
    }
    if (r->speed_measured) {
        char *n = xasprintf("%s\n  speed on %s: %.2fx the reference (needs %.2f)", s,
                            r->speed_case, r->speed_ratio, r->speed_threshold);
        free(s);
        s = n;
    }
    return s;
}

static int write_gradescope(const struct course *c, int only_graded, FILE *out)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *tests = cJSON_CreateArray();
    double score = 0, max = 0;
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!included(t, only_graded))
            continue;
        /* Gradescope keeps the task's full weight as max: a skipped grading is 0 of it. */
        double ts = task_score(t), tm = task_weight(t);
        score += ts;
        max += tm;
        cJSON *x = cJSON_CreateObject();
        char *name = xasprintf("%s: %s", task_id(t), task_title(t));
        cJSON_AddStringToObject(x, "name", name);
        free(name);
        cJSON_AddNumberToObject(x, "score", ts);
        cJSON_AddNumberToObject(x, "max_score", tm);
        cJSON_AddStringToObject(x, "status", task_outcome(t) == OUTCOME_PASSED ? "passed" : "failed");
        char *o = task_output(t);
        cJSON_AddStringToObject(x, "output", o);
        free(o);
        cJSON_AddItemToArray(tests, x);
    }
    cJSON_AddNumberToObject(doc, "score", score);
    cJSON_AddNumberToObject(doc, "max_score", max);
    char *summary = xasprintf("%g of %g points; %zu of %zu tasks passed", score, max,
                              course_count_outcome(c, OUTCOME_PASSED), course_task_count(c));
    cJSON_AddStringToObject(doc, "output", summary);
    free(summary);
    cJSON_AddItemToObject(doc, "tests", tests);
    return write_json_doc(doc, out);
}

/* ======================================================================= CSV */
static void csv_field(FILE *out, const char *s, int last)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
    fputs(last ? "\"\n" : "\",", out);
}

static int write_csv(const struct course *c, int only_graded, FILE *out)
{
    fputs("task,lesson,title,outcome,score,max_score,cases_passed,cases,speed_ratio,"
          "speed_threshold,seed,duration_s,reason\n", out);
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!included(t, only_graded))
            continue;
        const struct task_result *r = task_result(t);
        csv_field(out, task_id(t), 0);
        csv_field(out, lesson_id(task_lesson(t)), 0);
        csv_field(out, task_title(t), 0);
        fprintf(out, "%s,%g,%g,", outcome_key(task_outcome(t)), task_score(t),
                r ? r->max_score : task_weight(t));
        if (r) {
            fprintf(out, "%zu,%zu,", result_cases_passed(r), r->n_cases);
            if (r->speed_measured)
                fprintf(out, "%.4f,", r->speed_ratio);
            else
                fputs(",", out);
            fprintf(out, "%g,%llu,%.3f,", r->speed_threshold, (unsigned long long)r->seed,
                    r->duration_s);
        } else {
            fprintf(out, ",,,%g,,,", task_speed_threshold(t));
        }
        csv_field(out, r ? r->reason : "", 1);
    }
    return ferror(out) ? -1 : 0;
}

/* ======================================================================= JUnit XML */
static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            /* XML 1.0 allows no control characters but tab, newline and carriage return. */
            if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
                fputc('?', out);
            else
                fputc(ch, out);
        }
    }
}

static int write_junit(const struct course *c, int only_graded, FILE *out)
{
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    double time = 0;
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!included(t, only_graded))
            continue;
        tests++;
        enum grader_outcome o = task_outcome(t);
        failures += o == OUTCOME_WRONG || o == OUTCOME_SANITIZER || o == OUTCOME_TOO_SLOW;
        errors += o == OUTCOME_BUILD_FAILED || o == OUTCOME_CUDA_ERROR || o == OUTCOME_CRASHED ||
                  o == OUTCOME_TIMED_OUT;
        skipped += o == OUTCOME_SKIPPED || o == OUTCOME_NOT_RUN;
        time += task_result(t) ? task_result(t)->duration_s : 0;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<testsuites name=\"cuda-lab\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                 "skipped=\"%zu\" time=\"%.3f\">\n", tests, failures, errors, skipped, time);
    for (size_t li = 0; li < course_lesson_count(c); li++) {
        const struct lesson *l = course_lesson(c, li);
        fputs("  <testsuite name=\"", out);
        xml_text(out, lesson_id(l));
        fprintf(out, "\">\n");
        for (size_t ti = 0; ti < lesson_task_count(l); ti++) {
            const struct task *t = lesson_task(l, ti);
            if (!included(t, only_graded))
                continue;
            const struct task_result *r = task_result(t);
            enum grader_outcome o = task_outcome(t);
            fputs("    <testcase classname=\"", out);
            xml_text(out, lesson_id(l));
            fputs("\" name=\"", out);
            xml_text(out, task_name(t));
            fprintf(out, "\" time=\"%.3f\">", r ? r->duration_s : 0.0);
            const char *tag = o == OUTCOME_PASSED                               ? NULL
                              : o == OUTCOME_SKIPPED || o == OUTCOME_NOT_RUN    ? "skipped"
                              : o == OUTCOME_WRONG || o == OUTCOME_SANITIZER ||
                                        o == OUTCOME_TOO_SLOW                   ? "failure"
                                                                                : "error";
            if (tag) {
                fprintf(out, "\n      <%s type=\"%s\" message=\"", tag, outcome_key(o));
                xml_text(out, r && r->reason[0] ? r->reason : outcome_name(o));
                fputs("\">", out);
                char *detail = task_output(t);
                xml_text(out, detail);
                free(detail);
                fprintf(out, "</%s>\n    ", tag);
            }
            fputs("</testcase>\n", out);
        }
        if (lesson_error(l)) {
            fputs("    <testcase classname=\"", out);
            xml_text(out, lesson_id(l));
            fputs("\" name=\"lesson.ini\"><error type=\"lesson_ini\" message=\"", out);
            xml_text(out, lesson_error(l));
            fputs("\"/></testcase>\n", out);
        }
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}

/* ======================================================================= text */
static void text_task(const struct task *t, FILE *out)
{
    const struct task_result *r = task_result(t);
    fprintf(out, "  %-28s %-18s %5g/%-5g", task_name(t), outcome_name(task_outcome(t)),
            task_score(t), r ? r->max_score : task_weight(t));
    if (r && r->n_cases)
        fprintf(out, "  %zu/%zu cases", result_cases_passed(r), r->n_cases);
    if (r && r->speed_measured)
        fprintf(out, "  speed %.2fx (needs %.2f)", r->speed_ratio, r->speed_threshold);
    fputc('\n', out);
    if (!r)
        return;
    if (r->reason[0])
        fprintf(out, "      %s\n", r->reason);
    if (r->outcome == OUTCOME_WRONG)
        for (size_t i = 0; i < r->n_cases; i++) {
            const struct case_result *c = &r->cases[i];
            if (c->status == CASE_PASS)
                continue;
            fprintf(out, "      case %-20s %s", c->name, case_status_name(c->status));
            if (c->bad > 0)
                fprintf(out, ", %lld of %lld wrong", c->bad, c->checked);
            if (c->note[0])
                fprintf(out, ", %s", c->note);
            fputc('\n', out);
            for (size_t k = 0; k < c->n_mismatches && k < 3; k++)
                fprintf(out, "          %s\n", c->mismatches[k]);
        }
    /* The reason already names the first error and the first finding: the rest follow. */
    if (r->outcome == OUTCOME_BUILD_FAILED)
        for (size_t i = 0, seen = 0; i < r->n_diags && seen < 6; i++) {
            const struct compiler_diag *d = &r->diags[i];
            if (!strstr(d->severity, "error") || seen++ == 0)
                continue;
            fprintf(out, "      %s:%d: %s: %s\n", d->file, d->line, d->severity, d->text);
        }
    for (size_t i = 1; i < r->n_findings && i < 6; i++) {
        const struct sanitizer_finding *f = &r->findings[i];
        fprintf(out, "      %s: %s  %s  %s:%d\n", f->tool, f->kind, f->kernel, f->file, f->line);
    }
    for (size_t i = 0; i < r->n_sanitizer_runs; i++) {
        const struct sanitizer_run *s = &r->sanitizer_runs[i];
        if (s->note[0])
            fprintf(out, "      %s: %s\n", s->tool, s->note);
    }
    if (r->build_log_path[0] && r->outcome == OUTCOME_BUILD_FAILED)
        fprintf(out, "      build log: %s\n", r->build_log_path);
}

static int write_text(const struct course *c, int only_graded, FILE *out)
{
    for (size_t i = 0; i < course_error_count(c); i++)
        fprintf(out, "error: %s\n", course_error(c, i));
    for (size_t li = 0; li < course_lesson_count(c); li++) {
        const struct lesson *l = course_lesson(c, li);
        int any = 0;
        for (size_t ti = 0; ti < lesson_task_count(l); ti++)
            any |= included(lesson_task(l, ti), only_graded);
        if (!any)
            continue;
        fprintf(out, "%s  %s\n", lesson_id(l), lesson_title(l));
        for (size_t ti = 0; ti < lesson_task_count(l); ti++)
            if (included(lesson_task(l, ti), only_graded))
                text_task(lesson_task(l, ti), out);
    }
    double score = 0, max = 0;
    size_t n[OUTCOME_COUNT] = {0};
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!included(t, only_graded))
            continue;
        score += task_score(t);
        max += task_result(t) ? task_result(t)->max_score : task_weight(t);
        n[task_outcome(t)]++;
    }
    fprintf(out, "score: %g/%g", score, max);
    if (max > 0)
        fprintf(out, " (%.0f%%)", 100 * score / max);
    const char *sep = "  ";
    for (int o = 0; o < OUTCOME_COUNT; o++)
        if (n[o]) {
            fprintf(out, "%s%s %zu", sep, outcome_name((enum grader_outcome)o), n[o]);
            sep = ", ";
        }
    fputc('\n', out);
    return ferror(out) ? -1 : 0;
}

int report_write(const struct course *c, enum report_format f, int only_graded, FILE *out)
{
    switch (f) {
    case REPORT_TEXT: return write_text(c, only_graded, out);
    case REPORT_JSON: return write_json(c, only_graded, out);
    case REPORT_CSV: return write_csv(c, only_graded, out);
    case REPORT_JUNIT: return write_junit(c, only_graded, out);
    case REPORT_GRADESCOPE: return write_gradescope(c, only_graded, out);
    }
    return -1;
}

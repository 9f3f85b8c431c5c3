/* report.c — results as text, JSON, CSV, JUnit XML and Gradescope results.json (report.h). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"
#include "result_json.h"

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
        cJSON_AddItemToArray(tasks, task_to_json(t));
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

/* text.c — the plain-text report and one task's story (formats.h). */
#include <stdlib.h>
#include <string.h>

#include "fs.h"

#include "collect.h"
#include "formats.h"
#include "model_impl.h"

/* ---------------------------------------------------------------- one task's story */
static void story_cases(const struct task_result *r, struct strbuf *b)
{
    size_t shown = 0, failing = 0;
    for (size_t i = 0; i < r->n_cases; i++) {
        const struct case_result *c = &r->cases[i];
        if (c->status != CASE_FAIL && c->status != CASE_ERROR)
            continue;
        /* the first few failing cases tell the story; the full record is in the JSON */
        if (failing++ >= 3)
            continue;
        shown++;
        sb_printf(b, "  %s: %s%s%s\n", c->name, case_status_name(c->status),
                  c->first_mismatch[0] ? ", first mismatch " : "", c->first_mismatch);
        if (c->note[0])
            sb_printf(b, "    %s\n", c->note);
    }
    if (failing > shown)
        sb_printf(b, "  ... and %zu more failing cases\n", failing - shown);
}

/* The program ended before its outputs were checked: what each case says then is only that
 * its dump is not there, once per case; what the program printed last says more. */
static int ended_early(const struct task_result *r)
{
    return r->outcome == OUTCOME_CRASHED || r->outcome == OUTCOME_TIMED_OUT ||
           r->outcome == OUTCOME_CUDA_ERROR;
}

/* The last n lines of the file at path (its captured stream), indented; nothing when it is
 * gone or empty. 1 when some were written. */
static int story_tail(const char *path, const char *what, size_t n, struct strbuf *b)
{
    char *text = path && path[0] ? read_text_file(path, (size_t)1 << 20) : NULL;
    size_t len = text ? strlen(text) : 0;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    if (!len) {
        free(text);
        return 0;
    }
    const char *start = text + len;
    for (size_t lines = 0; start > text && lines < n; start--)
        lines += start[-1] == '\n';
    if (*start == '\n') /* stopped on the newline before the first line kept */
        start++;
    sb_printf(b, "the last lines it printed (%s):\n", what);
    for (const char *p = start; *p;) {
        size_t k = strcspn(p, "\n");
        sb_printf(b, "  | %.*s\n", (int)k, p);
        p += k + (p[k] == '\n');
    }
    free(text);
    return 1;
}

char *task_story(const struct task_result *r)
{
    struct strbuf b = { 0 };
    if (!r) {
        sb_printf(&b, "%s: never graded\n", outcome_name(OUTCOME_NOT_RUN));
        return wb_take(&b);
    }
    sb_puts(&b, outcome_name(r->outcome));
    if (r->reason[0])
        sb_printf(&b, ": %s", r->reason);
    sb_puts(&b, "\n");
    if (r->n_cases > 0 && ended_early(r)) {
        sb_printf(&b, "cases: %zu of %zu verified: the program ended before it wrote the "
                      "others' outputs\n", result_cases_passed(r), r->n_cases);
        if (!story_tail(r->stderr_path, "stderr", 5, &b))
            story_tail(r->stdout_path, "stdout", 5, &b);
    } else {
        if (r->n_cases > 0)
            sb_printf(&b, "cases: %zu of %zu verified\n", result_cases_passed(r), r->n_cases);
        story_cases(r, &b);
    }
    if (r->speed_measured)
        sb_printf(&b, "speed (%s): %.3g x the reference, threshold %.3g\n", r->speed_case,
                  r->speed_ratio, r->speed_threshold);
    if (r->gpu_unlocked)
        sb_printf(&b, "timed without the course's GPU lock (it could not be taken): other work "
                      "may have run on the GPU beside these times\n");
    for (size_t i = 0; i < r->n_diags && i < 10; i++) {
        const struct compiler_diag *d = &r->diags[i];
        char *line = xasprintf("%s:%d: %s: %s", d->file, d->line, d->severity, d->text);
        if (strcmp(line, r->reason) != 0)   /* the reason names the first error already */
            sb_printf(&b, "%s\n", line);
        free(line);
    }
    for (size_t i = 0; i < result_forbidden_count(r); i++)
        sb_printf(&b, "forbidden symbol: %s\n", result_forbidden(r, i));
    for (size_t i = 0; i < r->n_findings && i < 5; i++) {
        const struct sanitizer_finding *f = &r->findings[i];
        sb_printf(&b, "%s: %s", f->tool, f->kind);
        if (f->file[0])
            sb_printf(&b, " at %s:%d", f->file, f->line);
        sb_puts(&b, "\n");
    }
    return wb_take(&b);
}

/* ---------------------------------------------------------------- the text report */
static void text_wrong_cases(const struct task_result *r, struct strbuf *b)
{
    for (size_t i = 0; i < r->n_cases; i++) {
        const struct case_result *c = &r->cases[i];
        if (c->status == CASE_PASS)
            continue;
        sb_printf(b, "      case %-20s %s", c->name, case_status_name(c->status));
        if (c->bad > 0)
            sb_printf(b, ", %lld of %lld wrong", c->bad, c->checked);
        if (c->note[0])
            sb_printf(b, ", %s", c->note);
        sb_puts(b, "\n");
        for (size_t k = 0; k < c->n_mismatches && k < 3; k++)
            sb_printf(b, "          %s\n", c->mismatches[k]);
    }
}

/* The reason already names the first error and the first finding: the rest follow. */
static void text_details(const struct task_result *r, struct strbuf *b)
{
    if (r->outcome == OUTCOME_BUILD_FAILED)
        for (size_t i = 0, seen = 0; i < r->n_diags && seen < 6; i++) {
            const struct compiler_diag *d = &r->diags[i];
            if (!strstr(d->severity, "error") || seen++ == 0)
                continue;
            sb_printf(b, "      %s:%d: %s: %s\n", d->file, d->line, d->severity, d->text);
        }
    for (size_t i = 1; i < r->n_findings && i < 6; i++) {
        const struct sanitizer_finding *f = &r->findings[i];
        sb_printf(b, "      %s: %s  %s  %s:%d\n", f->tool, f->kind, f->kernel, f->file, f->line);
    }
    for (size_t i = 0; i < r->n_sanitizer_runs; i++) {
        const struct sanitizer_run *s = &r->sanitizer_runs[i];
        if (s->note[0])
            sb_printf(b, "      %s: %s\n", s->tool, s->note);
    }
    if (r->build_log_path[0] && r->outcome == OUTCOME_BUILD_FAILED)
        sb_printf(b, "      build log: %s\n", r->build_log_path);
}

static void text_task(const struct task *t, struct strbuf *b)
{
    const struct task_result *r = task_result(t);
    sb_printf(b, "  %-28s %-18s %5g/%-5g", task_name(t), outcome_name(task_outcome(t)),
              task_score(t), r ? r->max_score : task_weight(t));
    if (r && r->n_cases)
        sb_printf(b, "  %zu/%zu cases", result_cases_passed(r), r->n_cases);
    if (r && r->speed_measured)
        sb_printf(b, "  speed %.2fx (needs %.2f)", r->speed_ratio, r->speed_threshold);
    sb_puts(b, "\n");
    if (!r)
        return;
    if (r->reason[0])
        sb_printf(b, "      %s\n", r->reason);
    if (r->outcome == OUTCOME_WRONG)
        text_wrong_cases(r, b);
    text_details(r, b);
    profile_task_text(t, r, "      ", b);
}

static void text_total(const struct course *c, int only_graded, struct strbuf *b)
{
    struct report_totals tot;
    report_totals(c, only_graded, &tot);
    sb_printf(b, "score: %g/%g", tot.score, tot.max);
    if (tot.max > 0)
        sb_printf(b, " (%.0f%%)", 100 * tot.score / tot.max);
    const char *sep = "  ";
    for (int o = 0; o < OUTCOME_COUNT; o++)
        if (tot.n[o]) {
            sb_printf(b, "%s%s %zu", sep, outcome_name((enum grader_outcome)o), tot.n[o]);
            sep = ", ";
        }
    sb_puts(b, "\n");
}

void text_course(const struct course *c, int only_graded, struct strbuf *b)
{
    for (size_t i = 0; i < course_error_count(c); i++)
        sb_printf(b, "error: %s\n", course_error(c, i));
    for (size_t li = 0; li < course_lesson_count(c); li++) {
        const struct lesson *l = course_lesson(c, li);
        int any = 0;
        for (size_t ti = 0; ti < lesson_task_count(l); ti++)
            any |= report_included(lesson_task(l, ti), only_graded);
        if (!any)
            continue;
        sb_printf(b, "%s  %s\n", lesson_id(l), lesson_title(l));
        for (size_t ti = 0; ti < lesson_task_count(l); ti++)
            if (report_included(lesson_task(l, ti), only_graded))
                text_task(lesson_task(l, ti), b);
    }
    text_total(c, only_graded, b);
}

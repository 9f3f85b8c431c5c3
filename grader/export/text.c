/* text.c — the plain-text report (formats.h). */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "formats.h"
#include "model_impl.h"

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
    char rt[24];
    if (r && r->speed_measured)
        sb_printf(b, "  speed %sx (needs %.2f)", ratio_text(r->speed_ratio, rt, sizeof rt),
                  r->speed_threshold);
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

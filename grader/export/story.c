/* story.c — what every writer shares (formats.h): the tasks a report includes, its totals,
 * and one task's story. */
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "fs.h"
#include "model_impl.h"

int report_included(const struct task *t, int only_graded)
{
    return !only_graded || task_result(t) != NULL;
}

void report_totals(const struct course *c, int only_graded, struct report_totals *tot)
{
    memset(tot, 0, sizeof *tot);
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!report_included(t, only_graded))
            continue;
        const struct task_result *r = task_result(t);
        tot->score += r ? result_score(r) : 0;
        tot->max += r ? result_max_score(r) : task_weight(t);
        tot->tasks++;
        tot->n[task_outcome(t)]++;
    }
}

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
    /* a reason that begins with the outcome's name ("timed out after 40 s") stands alone */
    const char *name = outcome_name(r->outcome);
    size_t n = strlen(name);
    if (strncmp(r->reason, name, n) == 0 && (r->reason[n] == ':' || r->reason[n] == ' '))
        sb_printf(&b, "%s\n", r->reason);
    else if (r->reason[0])
        sb_printf(&b, "%s: %s\n", name, r->reason);
    else
        sb_printf(&b, "%s\n", name);
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

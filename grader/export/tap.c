/* tap.c — TAP (`--batch --format tap`): one test point per task, `ok` when it passed, `ok
 * ... # SKIP reason` when it was skipped, `not ok` otherwise, with the outcome in the
 * description and a YAML block (message, outcome, score, seed, the story). A lesson.ini that
 * did not load is one more `not ok`. A run where every reported task was skipped is the plan
 * `1..0 # SKIP reason`, as TAP has it for a file that ran nothing.
 *
 * The version line says 13: the report uses nothing TAP 14 added (YAML blocks, SKIP and the
 * empty plan are 13's), TAP 14 consumers read 13, and Test::Harness 3.44's prove refuses a
 * "TAP version 14" file outright. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "formats.h"

/* s as a YAML double-quoted scalar (JSON's string syntax is a subset of it) */
static void yaml_str(struct strbuf *b, const char *key, const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *q = cJSON_PrintUnformatted(j);
    sb_printf(b, "  %s: %s\n", key, q ? q : "\"\"");
    cJSON_free(q);
    cJSON_Delete(j);
}

/* one line with no '#' (TAP reads what follows one as a directive); a harness's own "SKIP: "
 * in front of a reason is dropped, the directive says it already */
static void tap_words(struct strbuf *b, const char *s)
{
    if (strncmp(s, "SKIP: ", 6) == 0)
        s += 6;
    for (; *s && *s != '\n'; s++)
        sb_add(b, *s == '#' ? "\\#" : s, *s == '#' ? 2 : 1);
}

static void tap_task(const struct task *t, size_t n, struct strbuf *b)
{
    const struct task_result *r = task_result(t);
    enum grader_outcome o = task_outcome(t);
    const char *reason = r ? result_reason(r) : "";
    if (o == OUTCOME_SKIPPED) {
        sb_printf(b, "ok %zu - %s # SKIP ", n, task_id(t));
        tap_words(b, reason[0] ? reason : outcome_name(o));
        sb_puts(b, "\n");
        return;
    }
    sb_printf(b, "%s %zu - %s: %s\n", o == OUTCOME_PASSED ? "ok" : "not ok", n, task_id(t),
              outcome_name(o));
    if (o == OUTCOME_PASSED)
        return;
    char *story = task_story(r);
    sb_puts(b, "  ---\n");
    yaml_str(b, "message", reason[0] ? reason : outcome_name(o));
    yaml_str(b, "severity", outcome_junit(o) == JUNIT_ERROR ? "error" : "fail");
    yaml_str(b, "outcome", outcome_key(o));
    sb_printf(b, "  score: %g\n  max_score: %g\n", task_score(t),
              r ? result_max_score(r) : task_weight(t));
    if (r)
        sb_printf(b, "  seed: %llu\n", (unsigned long long)result_seed(r));
    yaml_str(b, "story", story);
    sb_puts(b, "  ...\n");
    free(story);
}

/* The reason of the first skipped task, when every reported task was skipped. */
static const char *all_skipped(const struct course *c, int only_graded, size_t *n)
{
    const char *why = NULL;
    int other = course_error_count(c) > 0;
    *n = 0;
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!report_included(t, only_graded))
            continue;
        (*n)++;
        if (task_outcome(t) != OUTCOME_SKIPPED)
            other = 1;
        else if (!why)
            why = result_reason(task_result(t))[0] ? result_reason(task_result(t)) : "skipped";
    }
    return other ? NULL : why ? why : "no task to grade";
}

void tap_course(const struct course *c, int only_graded, struct strbuf *b)
{
    size_t n;
    const char *skip = all_skipped(c, only_graded, &n);
    sb_puts(b, "TAP version 13\n");
    if (skip) {
        sb_puts(b, "1..0 # SKIP ");
        tap_words(b, skip);
        sb_puts(b, "\n");
        return;
    }
    sb_printf(b, "1..%zu\n", n + course_error_count(c));
    size_t k = 0;
    for (size_t i = 0; i < course_task_count(c); i++)
        if (report_included(course_task(c, i), only_graded))
            tap_task(course_task(c, i), ++k, b);
    for (size_t i = 0; i < course_error_count(c); i++) {
        sb_printf(b, "not ok %zu - ", ++k);
        tap_words(b, course_error(c, i));
        sb_puts(b, "\n");
    }
}

/* junit.c — JUnit XML, for `--batch --format junit` (a suite per lesson) and the class
 * gradebook's junit.xml (a suite per student), through one renderer. The element of a test
 * case is its outcome's JUnit kind (outcome.h); every total is counted from the cases written.
 * The layout keeps to Jenkins' junit-10 schema: <testsuites name time tests failures errors>,
 * <testsuite name tests failures errors skipped time>, <testcase classname name time> with at
 * most one <failure type message>, <error type message> or <skipped message>. */
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "gradebook.h"
#include "util.h"

struct junit_case {
    char *classname, *name;
    double time;
    enum junit_kind kind;
    char *type;                /* the outcome key */
    char *body;                /* the story; the message is its first line */
};

struct junit_suite {
    const char *name;
    struct junit_case *cases;
    size_t n, cap;
};

static void suite_add(struct junit_suite *s, const char *classname, const char *name,
                      double time, enum junit_kind kind, const char *type, const char *body)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->cases = xrealloc(s->cases, s->cap * sizeof *s->cases);
    }
    s->cases[s->n++] = (struct junit_case){ xstrdup(classname), xstrdup(name), time, kind,
                                            xstrdup(type), xstrdup(body) };
}

static void suites_free(struct junit_suite *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < s[i].n; k++) {
            struct junit_case *c = &s[i].cases[k];
            free(c->classname);
            free(c->name);
            free(c->type);
            free(c->body);
        }
        free(s[i].cases);
    }
    free(s);
}

/* ---------------------------------------------------------------- the renderer */
struct junit_totals { size_t tests, failures, errors, skipped; double time; };

static struct junit_totals suite_totals(const struct junit_suite *s)
{
    struct junit_totals t = { s->n, 0, 0, 0, 0 };
    for (size_t i = 0; i < s->n; i++) {
        t.failures += s->cases[i].kind == JUNIT_FAILURE;
        t.errors += s->cases[i].kind == JUNIT_ERROR;
        t.skipped += s->cases[i].kind == JUNIT_SKIPPED;
        t.time += s->cases[i].time;
    }
    return t;
}

static void render_case(const struct junit_case *c, struct strbuf *b)
{
    static const char *const element[] = {
        [JUNIT_PASS] = NULL, [JUNIT_FAILURE] = "failure", [JUNIT_ERROR] = "error",
        [JUNIT_SKIPPED] = "skipped" };
    const char *el = element[c->kind];
    sb_puts(b, "    <testcase classname=\"");
    wb_xml(b, c->classname, (size_t)-1);
    sb_puts(b, "\" name=\"");
    wb_xml(b, c->name, (size_t)-1);
    sb_printf(b, "\" time=\"%.3f\"", c->time);
    if (!el) {
        sb_puts(b, "/>\n");
        return;
    }
    sb_printf(b, ">\n      <%s ", el);
    if (c->kind != JUNIT_SKIPPED) {
        sb_puts(b, "type=\"");
        wb_xml(b, c->type, (size_t)-1);
        sb_puts(b, "\" ");
    }
    sb_puts(b, "message=\"");
    wb_xml(b, c->body, strcspn(c->body, "\n"));
    sb_puts(b, "\">");
    wb_xml(b, c->body, (size_t)-1);
    sb_printf(b, "</%s>\n    </testcase>\n", el);
}

static void junit_render(const char *name, const struct junit_suite *s, size_t n,
                         struct strbuf *b)
{
    struct junit_totals all = { 0 };
    for (size_t i = 0; i < n; i++) {
        struct junit_totals t = suite_totals(&s[i]);
        all.tests += t.tests;
        all.failures += t.failures;
        all.errors += t.errors;
        all.time += t.time;
    }
    sb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
    wb_xml(b, name, (size_t)-1);
    sb_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n", all.tests,
              all.failures, all.errors, all.time);
    for (size_t i = 0; i < n; i++) {
        struct junit_totals t = suite_totals(&s[i]);
        sb_puts(b, "  <testsuite name=\"");
        wb_xml(b, s[i].name, (size_t)-1);
        sb_printf(b, "\" id=\"%zu\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                     "time=\"%.3f\">\n", i, t.tests, t.failures, t.errors, t.skipped, t.time);
        for (size_t k = 0; k < s[i].n; k++)
            render_case(&s[i].cases[k], b);
        sb_puts(b, "  </testsuite>\n");
    }
    sb_puts(b, "</testsuites>\n");
}

/* ---------------------------------------------------------------- --batch: a suite per lesson */
static void lesson_suite(const struct lesson *l, int only_graded, struct junit_suite *s)
{
    s->name = lesson_id(l);
    for (size_t i = 0; i < lesson_task_count(l); i++) {
        const struct task *t = lesson_task(l, i);
        if (!report_included(t, only_graded))
            continue;
        const struct task_result *r = task_result(t);
        char *story = task_story(r);
        enum grader_outcome o = task_outcome(t);
        suite_add(s, lesson_id(l), task_name(t), r ? result_duration_s(r) : 0, outcome_junit(o),
                  outcome_key(o), story);
        free(story);
    }
    if (lesson_error(l))
        suite_add(s, lesson_id(l), "lesson.ini", 0, JUNIT_ERROR, "lesson_ini", lesson_error(l));
}

void junit_course(const struct course *c, int only_graded, struct strbuf *b)
{
    size_t n = 0, nl = course_lesson_count(c);
    struct junit_suite *s = xcalloc(nl + 1, sizeof *s);
    for (size_t i = 0; i < nl; i++) {
        lesson_suite(course_lesson(c, i), only_graded, &s[n]);
        n += s[n].n > 0;
    }
    junit_render("cuda-lab", s, n, b);
    suites_free(s, nl);
}

/* ---------------------------------------------------------------- class: a suite per student */
static double task_time(const struct gb_task *t)
{
    const cJSON *d = t ? cJSON_GetObjectItemCaseSensitive(t->detail, "duration_s") : NULL;
    return cJSON_IsNumber(d) ? d->valuedouble : 0;
}

static void student_suite(const struct gb_book *bk, size_t row, struct junit_suite *s)
{
    const struct gb_row *r = &bk->rows[row];
    s->name = r->name;
    for (size_t c = 0; c < bk->n_cols; c++) {
        const struct gb_task *t = gb_cell(bk, row, c);
        if (!r->graded)
            suite_add(s, r->name, bk->cols[c].id, 0, JUNIT_SKIPPED, "pending",
                      "pending: not graded yet");
        else
            suite_add(s, r->name, bk->cols[c].id, task_time(t), gb_task_junit(t),
                      t ? t->outcome : GB_NOT_SUBMITTED, t ? t->output : "not submitted");
    }
}

char *gb_book_junit(const struct gb_book *bk)
{
    struct junit_suite *s = xcalloc(bk->n_rows + 1, sizeof *s);
    for (size_t i = 0; i < bk->n_rows; i++)
        student_suite(bk, i, &s[i]);
    struct strbuf b = { 0 };
    junit_render("class", s, bk->n_rows, &b);
    suites_free(s, bk->n_rows);
    return wb_take(&b);
}

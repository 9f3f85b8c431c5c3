/* report.c — picks the writer of a format (report.h, formats.h). */
#include "report.h"

#include <string.h>

#include "formats.h"

static const struct {
    const char *name;
    void (*write)(const struct course *c, int only_graded, struct strbuf *b);
} formats[] = {
    [REPORT_TEXT] = { "text", text_course },
    [REPORT_JSON] = { "json", json_course },
    [REPORT_CSV] = { "csv", csv_course },
    [REPORT_JUNIT] = { "junit", junit_course },
    [REPORT_GRADESCOPE] = { "gradescope", gradescope_course },
    [REPORT_TAP] = { "tap", tap_course },
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

int report_format_parse(const char *name, enum report_format *f)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (strcmp(name, formats[i].name) == 0) {
            *f = (enum report_format)i;
            return 0;
        }
    return -1;
}

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

int report_write(const struct course *c, enum report_format f, int only_graded, FILE *out)
{
    if ((size_t)f >= N_FORMATS)
        return -1;
    struct strbuf b = { 0 };
    formats[f].write(c, only_graded, &b);
    return wb_emit(&b, out);
}

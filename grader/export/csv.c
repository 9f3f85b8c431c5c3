/* csv.c — CSV, RFC 4180 with CRLF line ends: the task table of `--batch --format csv` and the
 * class gradebook's student-by-task table (gradebook.h). Every cell goes through wb_csv. */
#include <stdlib.h>

#include "formats.h"
#include "gradebook.h"
#include "util.h"

static void cell(struct strbuf *b, const char *s, const char *after)
{
    wb_csv(b, s);
    sb_puts(b, after);
}

static void cell_num(struct strbuf *b, const char *fmt, double v, int known, const char *after)
{
    if (known)
        sb_printf(b, fmt, v);
    sb_puts(b, after);
}

static void csv_task(const struct task *t, struct strbuf *b)
{
    const struct task_result *r = task_result(t);
    cell(b, task_id(t), ",");
    cell(b, lesson_id(task_lesson(t)), ",");
    cell(b, task_title(t), ",");
    cell(b, outcome_key(task_outcome(t)), ",");
    cell_num(b, "%g", task_score(t), 1, ",");
    cell_num(b, "%g", r ? result_max_score(r) : task_weight(t), 1, ",");
    cell_num(b, "%.0f", r ? (double)result_cases_passed(r) : 0, r != NULL, ",");
    cell_num(b, "%.0f", r ? (double)result_case_count(r) : 0, r != NULL, ",");
    cell_num(b, "%.4f", r ? result_speed_ratio(r) : 0, r && result_speed_measured(r), ",");
    cell_num(b, "%g", r ? result_speed_threshold(r) : task_speed_threshold(t), 1, ",");
    if (r)
        sb_printf(b, "%llu", (unsigned long long)result_seed(r));
    sb_puts(b, ",");
    cell_num(b, "%.3f", r ? result_duration_s(r) : 0, r != NULL, ",");
    cell_num(b, "%.3f", r ? result_wait_s(r) : 0, r != NULL, ",");
    cell(b, r ? result_reason(r) : "", "\r\n");
}

void csv_course(const struct course *c, int only_graded, struct strbuf *b)
{
    sb_puts(b, "task,lesson,title,outcome,score,max_score,cases_passed,cases,speed_ratio,"
               "speed_threshold,seed,duration_s,wait_s,reason\r\n");
    for (size_t i = 0; i < course_task_count(c); i++)
        if (report_included(course_task(c, i), only_graded))
            csv_task(course_task(c, i), b);
    /* a lesson whose lesson.ini did not load has no tasks to list: one row says why */
    for (size_t i = 0; i < course_lesson_count(c); i++) {
        const struct lesson *l = course_lesson(c, i);
        if (!lesson_error(l))
            continue;
        char *id = xasprintf("%s/lesson.ini", lesson_id(l));
        cell(b, id, ",");
        cell(b, lesson_id(l), ",");
        cell(b, "lesson.ini", ",");
        cell(b, outcome_key(OUTCOME_NOT_RUN), ",0,0,,,,,,,,");
        cell(b, lesson_error(l), "\r\n");
        free(id);
    }
}

static void book_row(const struct gb_book *bk, size_t i, struct strbuf *b)
{
    const struct gb_row *r = &bk->rows[i];
    cell(b, r->name, ",");
    cell(b, r->status, ",");
    cell_num(b, "%g", gb_row_total(bk, i), r->graded, ",");
    cell_num(b, "%g", gb_row_max(bk, i), 1, "");
    for (size_t c = 0; c < bk->n_cols; c++) {
        const struct gb_task *t = gb_cell(bk, i, c);
        sb_puts(b, ",");
        cell_num(b, "%g", t ? t->score : 0, r->graded, ",");
        if (r->graded)
            wb_csv(b, t ? t->outcome : GB_NOT_SUBMITTED);
    }
    sb_puts(b, "\r\n");
}

char *gb_book_csv(const struct gb_book *bk)
{
    struct strbuf b = { 0 };
    sb_puts(&b, "student,status,total,max");
    for (size_t c = 0; c < bk->n_cols; c++) {
        char *label = xasprintf("%s outcome", bk->cols[c].id);
        sb_puts(&b, ",");
        cell(&b, bk->cols[c].id, ",");
        wb_csv(&b, label);
        free(label);
    }
    sb_puts(&b, "\r\n");
    for (size_t i = 0; i < bk->n_rows; i++)
        book_row(bk, i, &b);
    return wb_take(&b);
}

/* gradebook.c — students' results and the merged book: see gradebook.h. The files themselves
 * are written by gradescope.c, csv.c, junit.c and reference.c, and put on disk by report.c. */
#include "gradebook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---------------------------------------------------------------- student */
void gb_student_init(struct gb_student *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = xstrdup(name ? name : "");
    s->hash = xstrdup("");
}

void gb_student_free(struct gb_student *s)
{
    for (size_t i = 0; i < s->n_tasks; i++) {
        struct gb_task *t = &s->tasks[i];
        free(t->id);
        free(t->title);
        free(t->outcome);
        free(t->output);
        cJSON_Delete(t->detail);
    }
    free(s->tasks);
    free(s->name);
    free(s->hash);
    memset(s, 0, sizeof *s);
}

int gb_student_add_task(struct gb_student *s, const char *id, const char *title, double score,
                        double max_score, const char *outcome, const char *output,
                        cJSON *detail)
{
    if (s->n_tasks == s->cap_tasks) {
        s->cap_tasks = s->cap_tasks ? 2 * s->cap_tasks : 16;
        s->tasks = xrealloc(s->tasks, s->cap_tasks * sizeof *s->tasks);
    }
    struct gb_task *t = &s->tasks[s->n_tasks++];
    t->id = xstrdup(id ? id : "");
    t->title = xstrdup(title && title[0] ? title : t->id);
    t->outcome = xstrdup(outcome ? outcome : "");
    t->output = xstrdup(output ? output : "");
    t->score = score;
    t->max_score = max_score;
    t->detail = detail;
    return 0;
}

const struct gb_task *gb_student_find(const struct gb_student *s, const char *id)
{
    for (size_t i = 0; i < s->n_tasks; i++)
        if (strcmp(s->tasks[i].id, id) == 0)
            return &s->tasks[i];
    return NULL;
}

/* The sum of the tasks' scores, or of their maxima. */
static double student_sum(const struct gb_student *s, int of_max)
{
    double sum = 0;
    for (size_t i = 0; i < s->n_tasks; i++)
        sum += of_max ? s->tasks[i].max_score : s->tasks[i].score;
    return sum;
}

double gb_student_score(const struct gb_student *s) { return student_sum(s, 0); }
double gb_student_max(const struct gb_student *s) { return student_sum(s, 1); }

enum junit_kind gb_task_junit(const struct gb_task *t)
{
    enum grader_outcome o = t ? outcome_from_key(t->outcome) : OUTCOME_NOT_RUN;
    /* not submitted is no outcome of the engine: nothing was graded, as with not run */
    return outcome_junit(o == OUTCOME_COUNT ? OUTCOME_NOT_RUN : o);
}

/* ---------------------------------------------------------------- the book */
void gb_book_init(struct gb_book *b) { memset(b, 0, sizeof *b); }

void gb_book_free(struct gb_book *b)
{
    for (size_t i = 0; i < b->n_cols; i++) {
        free(b->cols[i].id);
        free(b->cols[i].title);
    }
    for (size_t i = 0; i < b->n_rows; i++) {
        free(b->rows[i].name);
        if (b->rows[i].graded)
            gb_student_free(&b->rows[i].student);
    }
    free(b->cols);
    free(b->rows);
    memset(b, 0, sizeof *b);
}

int gb_book_add_column(struct gb_book *b, const char *id, const char *title, double max_score)
{
    if (b->n_cols == b->cap_cols) {
        b->cap_cols = b->cap_cols ? 2 * b->cap_cols : 16;
        b->cols = xrealloc(b->cols, b->cap_cols * sizeof *b->cols);
    }
    struct gb_column *c = &b->cols[b->n_cols++];
    c->id = xstrdup(id ? id : "");
    c->title = xstrdup(title ? title : "");
    c->max_score = max_score;
    return 0;
}

int gb_book_add(struct gb_book *b, const char *name, struct gb_student *s, const char *status)
{
    if (b->n_rows == b->cap_rows) {
        b->cap_rows = b->cap_rows ? 2 * b->cap_rows : 32;
        b->rows = xrealloc(b->rows, b->cap_rows * sizeof *b->rows);
    }
    struct gb_row *r = &b->rows[b->n_rows++];
    memset(r, 0, sizeof *r);
    r->name = xstrdup(name);
    snprintf(r->status, sizeof r->status, "%s", status);
    if (s) {
        r->graded = 1;
        r->student = *s;
        memset(s, 0, sizeof *s);
    }
    return 0;
}

const struct gb_task *gb_cell(const struct gb_book *b, size_t row, size_t col)
{
    const struct gb_row *r = &b->rows[row];
    return r->graded ? gb_student_find(&r->student, b->cols[col].id) : NULL;
}

double gb_row_total(const struct gb_book *b, size_t row)
{
    double sum = 0;
    for (size_t c = 0; c < b->n_cols; c++) {
        const struct gb_task *t = gb_cell(b, row, c);
        sum += t ? t->score : 0;
    }
    return sum;
}

double gb_row_max(const struct gb_book *b, size_t row)
{
    double sum = 0;
    for (size_t c = 0; c < b->n_cols; c++) {
        const struct gb_task *t = gb_cell(b, row, c);
        /* a skipped task (no GPU) has max 0 in the student's results: it counts neither way */
        sum += t ? t->max_score : b->cols[c].max_score;
    }
    return sum;
}

/* formats.h — the report writers inside the export wing, one file each (text.c, json.c, csv.c,
 * junit.c, gradescope.c, tap.c). report.c picks one for `grader --batch`; the class gradebook
 * (gradebook.h) calls the same files for its results.json, gradebook.csv and junit.xml.
 *
 * A *_course writer reports the tasks of c that have a result (every task when only_graded is
 * 0) and appends its document to b; the caller emits it (writer.h). */
#ifndef GRADER_FORMATS_H
#define GRADER_FORMATS_H

#include "model.h"
#include "writer.h"

void text_course(const struct course *c, int only_graded, struct strbuf *b);
void json_course(const struct course *c, int only_graded, struct strbuf *b);
void csv_course(const struct course *c, int only_graded, struct strbuf *b);
void junit_course(const struct course *c, int only_graded, struct strbuf *b);
void gradescope_course(const struct course *c, int only_graded, struct strbuf *b);
void tap_course(const struct course *c, int only_graded, struct strbuf *b);

/* What a student reads about one grading, several lines: "OUTCOME[: reason]" first, then the
 * failing cases, the speed, compiler errors, forbidden symbols, sanitizer findings. r NULL:
 * "not run: never graded". The Gradescope output, the JUnit message and body and the TAP
 * diagnostics all come from here. Malloc'd. */
char *task_story(const struct task_result *r);

/* 1 when t belongs in a report of only the graded tasks (or of all of them). */
int report_included(const struct task *t, int only_graded);

/* Over the tasks a report includes: the points, their maximum (a task without a result counts
 * its weight), how many tasks, and how many of each outcome. */
struct report_totals {
    double score, max;
    size_t tasks;
    size_t n[OUTCOME_COUNT];
};
void report_totals(const struct course *c, int only_graded, struct report_totals *tot);

#endif /* GRADER_FORMATS_H */

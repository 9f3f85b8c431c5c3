/* decide.h — what the grading steps found, and the one rule that turns it into an outcome.
 *
 * A step never sets the outcome: it records a fact (the outcome that fact stands for, and the
 * one-line reason), and outcome_decide applies outcome.h's table once, after the last step:
 * the first row whose fact was recorded wins; nothing recorded is a pass; a cancelled grading
 * is "not run". The fact of the first row, "not run", is also how the grader reports its own
 * failures ("grader error: ..."): the task is not passed, and the student is not blamed.
 */
#ifndef GRADER_DECIDE_H
#define GRADER_DECIDE_H

#include <stdarg.h>
#include <stdio.h>

#include "model.h"

struct grade_facts {
    unsigned bits;                   /* 1u << outcome, for every fact recorded */
    char *reason[OUTCOME_COUNT];     /* the first reason recorded for each */
};

/* Records that the grading found o (any row but "passed"), with its reason. A second fact of
 * the same outcome keeps the first reason. */
void fact_record(struct grade_facts *f, enum grader_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void fact_vrecord(struct grade_facts *f, enum grader_outcome o, const char *fmt, va_list ap);
int fact_has(const struct grade_facts *f, enum grader_outcome o);
/* Forgets the fact of o, for a step that looks again (grade.c's second look at too slow). */
void fact_drop(struct grade_facts *f, enum grader_outcome o);
/* 1 when nothing was recorded yet. */
int facts_none(const struct grade_facts *f);
void facts_free(struct grade_facts *f);

/* The one decision: sets r's outcome, reason and score from the facts (see above). */
enum grader_outcome outcome_decide(struct task_result *r, const struct grade_facts *f,
                                   int cancelled);

/* The outcome table as Markdown (grader/README.md's "Outcomes" table is this text). */
void outcome_table_markdown(FILE *out);

#endif /* GRADER_DECIDE_H */

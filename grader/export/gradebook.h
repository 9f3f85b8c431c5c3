/* gradebook.h — a class's results on disk: one Gradescope results.json per student, merged
 * into a CSV gradebook and a JUnit XML file. The files are written by the same writers as
 * `grader --batch --format gradescope|csv|junit` (gradescope.c, csv.c, junit.c), each file
 * atomically (a temporary file in the same directory, then rename) and as valid UTF-8.
 *
 * Formats:
 *   results.json   Gradescope's autograder schema: score, execution_time, output, tests[]
 *                  (name, number, score, max_score, status "passed"/"failed", output), plus
 *                  extra_data { student, content_hash, seed, graded_at } and per test
 *                  extra_data { task, title, outcome, result } (result: the engine's full
 *                  record, result_json.h). `grader --batch --format gradescope` writes the same
 *                  file for the same exercises and seed, without student and content_hash.
 *   gradebook.csv  RFC 4180. Header: student,status,total,max,<task id>,<task id> outcome,...
 *                  one row per student; status is "graded", "stale" (results of files since
 *                  changed) or "pending" (no results yet: no scores, only the max).
 *                  Text cells that a spreadsheet would read as a formula get a leading '.
 *   reference.csv  per task with a speed case: the reference's times over the class (reference.c)
 *   junit.xml      <testsuites> with one <testsuite> per student, one <testcase> per task;
 *                  the element of an outcome is its JUnit kind in outcome.h (not submitted:
 *                  as not run), a pending student's tasks are <skipped>.
 * Outcomes are the engine's machine words (outcome_key) plus GB_NOT_SUBMITTED.
 */
#ifndef GRADER_GRADEBOOK_H
#define GRADER_GRADEBOOK_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "model.h"
#include "writer.h"

#define GB_NOT_SUBMITTED "not_submitted"

struct gb_task {
    char *id;             /* "03-naive-matmul/matmul_naive" */
    char *title;
    double score, max_score;
    char *outcome;        /* "passed", "wrong", ..., GB_NOT_SUBMITTED */
    char *output;         /* what the student reads: task_story (formats.h) */
    cJSON *detail;        /* owned, may be NULL: the engine's record of the grading */
};

struct gb_student {
    char *name;           /* "" in --batch: not written */
    char *hash;           /* content hash the results were graded from; "": not written */
    uint64_t seed;
    int seed_known;       /* 0: the tasks were graded with different seeds (not written) */
    double execution_time; /* seconds for the whole student */
    int64_t graded_at;    /* unix time */
    struct gb_task *tasks;
    size_t n_tasks, cap_tasks;
};

void gb_student_init(struct gb_student *s, const char *name);
void gb_student_free(struct gb_student *s);
/* Appends a task (strings copied; detail owned from here on, may be NULL); 0 or -1. */
int gb_student_add_task(struct gb_student *s, const char *id, const char *title, double score,
                        double max_score, const char *outcome, const char *output,
                        cJSON *detail);
/* Appends task t as graded by r (NULL: not graded): the one mapping from the engine's result
 * to a results.json test, for --batch and the class alike. */
void gb_student_add_result(struct gb_student *s, const struct task *t,
                           const struct task_result *r);
const struct gb_task *gb_student_find(const struct gb_student *s, const char *id);
double gb_student_score(const struct gb_student *s);
double gb_student_max(const struct gb_student *s);
/* The task's JUnit kind: outcome_junit of its outcome; not submitted reads as not run. */
enum junit_kind gb_task_junit(const struct gb_task *t);

/* gradescope.c: results.json text (malloc'd, valid UTF-8) and back. from_json fills an
 * initialized student (name from extra_data.student when present); -1 with a reason when it
 * is not a results file this module wrote. */
char *gb_results_to_json(const struct gb_student *s);
int gb_results_from_json(const char *text, struct gb_student *s, char *err, size_t errlen);
int gb_results_write(const char *path, const struct gb_student *s);
/* -1 when the file is missing (errno ENOENT) or unreadable or malformed (reason in err). */
int gb_results_read(const char *path, struct gb_student *s, char *err, size_t errlen);

/* ------------------------------------------------------------------ the merged gradebook */
struct gb_column { char *id, *title; double max_score; };
struct gb_row {
    char *name;
    int graded;                 /* 1: results present (student valid) */
    char status[16];            /* "graded", "stale" (results of older files), "pending" */
    struct gb_student student;  /* valid when graded */
};
struct gb_book {
    struct gb_column *cols; size_t n_cols, cap_cols;   /* the course's tasks, in order */
    struct gb_row *rows; size_t n_rows, cap_rows;      /* students, in the order added */
};

void gb_book_init(struct gb_book *b);
void gb_book_free(struct gb_book *b);
int gb_book_add_column(struct gb_book *b, const char *id, const char *title, double max_score);
/* Adds a student's row with its status; s is moved into the book (NULL: no results). */
int gb_book_add(struct gb_book *b, const char *name, struct gb_student *s, const char *status);
/* The task of column col in row, NULL when the student has no results or none for it. */
const struct gb_task *gb_cell(const struct gb_book *b, size_t row, size_t col);
/* Column totals for a row: a task missing from a graded student's results counts as not
 * submitted (0 of the column's max). */
double gb_row_total(const struct gb_book *b, size_t row);
double gb_row_max(const struct gb_book *b, size_t row);

char *gb_book_csv(const struct gb_book *b);    /* csv.c; malloc'd */
char *gb_book_junit(const struct gb_book *b);  /* junit.c; malloc'd */
/* reference.c: per task with a speed case, the reference times the ratios were taken against:
 * gradings, how many timed the reference themselves, the least and greatest median, the drift
 * between them and the widest repetition spread inside one measurement (%). malloc'd. */
char *gb_book_reference_csv(const struct gb_book *b);
/* gb_book_write (report.h) puts the three on disk. */

#endif /* GRADER_GRADEBOOK_H */

/* collect.c — merging every student's results.json into DIR/gradebook.csv and DIR/junit.xml
 * (class_int.h), for `grader class` and `grader collect` (class.c). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "class_int.h"
#include "gradebook.h"
#include "report.h"
#include "session.h"

/* ---------------------------------------------------------------- merging */
/* Reads every student's results into a book whose columns are the course's tasks; a
 * student's status compares their stored hash with the one their files have now (hashes
 * NULL: everything present counts as graded). Returns how many are not "graded". */
static size_t merge_book(const struct course *c, const char *class_dir, const struct roster *r,
                         char *const *hashes, struct gb_book *b)
{
    size_t missing = 0;
    gb_book_init(b);
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        gb_book_add_column(b, task_id(t), task_title(t), task_weight(t));
    }
    for (size_t i = 0; i < r->n; i++) {
        char *path = results_path(class_dir, r->names[i]);
        struct gb_student s;
        char err[256];
        gb_student_init(&s, r->names[i]);
        if (path && gb_results_read(path, &s, err, sizeof err) == 0) {
            const char *status = !hashes || strcmp(s.hash, hashes[i]) == 0 ? "graded" : "stale";
            missing += strcmp(status, "graded") != 0;
            gb_book_add(b, r->names[i], &s, status);
        } else {
            if (path && errno != ENOENT)
                fprintf(stderr, "grader: %s: %s\n", r->names[i], err);
            gb_student_free(&s);
            gb_book_add(b, r->names[i], NULL, "pending");
            missing++;
        }
        free(path);
    }
    return missing;
}

/* Whether an outcome came from running the task: not one of those decided before any run
 * (not submitted, build failed, rejected, not run) nor a skip. */
static int measured(const char *outcome)
{
    static const enum grader_outcome before[] = {OUTCOME_NOT_RUN, OUTCOME_BUILD_FAILED,
                                                 OUTCOME_REJECTED, OUTCOME_SKIPPED};
    if (strcmp(outcome, GB_NOT_SUBMITTED) == 0)
        return 0;
    for (size_t i = 0; i < sizeof before / sizeof before[0]; i++)
        if (strcmp(outcome, outcome_key(before[i])) == 0)
            return 0;
    return 1;
}

/* A skipped task's reason: the engine's record, else what the student reads. */
static const char *skip_reason(const struct gb_task *t)
{
    const cJSON *why = t->detail ? cJSON_GetObjectItemCaseSensitive(t->detail, "reason") : NULL;
    if (cJSON_IsString(why) && why->valuestring[0])
        return why->valuestring;
    return t->output && t->output[0] ? t->output : "no reason given";
}

/* 77 (session.h) when some task of a graded student was skipped and none was measured: no
 * GPU, most likely, whatever else the class holds (builds that failed, tasks not handed in);
 * said in one line with the first skip's reason. Else 0. */
static int book_unmeasured(const struct gb_book *b)
{
    const struct gb_task *skip = NULL;
    size_t ran = 0;
    const char *skipped = outcome_key(OUTCOME_SKIPPED);
    for (size_t i = 0; i < b->n_rows; i++)
        for (size_t k = 0; b->rows[i].graded && k < b->rows[i].student.n_tasks; k++) {
            const struct gb_task *t = &b->rows[i].student.tasks[k];
            ran += measured(t->outcome);
            if (!skip && strcmp(t->outcome, skipped) == 0)
                skip = t;
        }
    if (!skip || ran)
        return 0;
    fprintf(stderr, "grader: nothing could be measured: every task that ran was skipped (%s: "
                    "%.*s); grader doctor checks the GPU\n",
            skip->id, (int)strcspn(skip_reason(skip), "\n"), skip_reason(skip));
    return GRADER_EXIT_SKIPPED;
}

int write_book(const struct course *c, const char *class_dir, const struct roster *r,
               char *const *hashes, size_t *missing, int *skipped)
{
    struct gb_book b;
    *missing = merge_book(c, class_dir, r, hashes, &b);
    *skipped = book_unmeasured(&b);
    int rc = gb_book_write(&b, class_dir);
    if (rc != 0)
        fprintf(stderr, "grader: cannot write %s/gradebook.csv: %s\n", class_dir, strerror(errno));
    gb_book_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- collecting */
int progress_line(const struct class_run *cr, const struct job_record *j)
{
    struct slurm_progress p;
    slurm_query(j->id, &p);
    size_t finished = 0;
    for (size_t i = 0; i < j->students.n; i++) {
        char hex[HASH_HEX_LEN + 1];
        finished += student_hash(j->key, cr->o.dir, j->students.names[i], hex) == 0 &&
                    results_fresh(cr->o.dir, j->students.names[i], hex);
    }
    printf("job %s: %s; %zu of %zu students graded\n", j->id, p.line, finished, j->students.n);
    fflush(stdout);
    return p.queried && p.pending + p.running + p.completing + p.other > 0;
}

/* Merges what finished; lists what did not. 0 when every student is graded. */
int collect_now(struct class_run *cr, const struct job_record *j)
{
    size_t missing = 0;
    int skipped = 0;
    if (write_book(cr->course, cr->o.dir, &cr->roster, cr->hashes, &missing, &skipped) != 0)
        return 1;
    size_t n = cr->roster.n;
    printf("gradebook: %s/gradebook.csv, %s/junit.xml (%zu of %zu students graded)\n",
           cr->o.dir, cr->o.dir, n - missing, n);
    for (size_t i = 0; i < n; i++) {
        const char *name = cr->roster.names[i];
        if (results_fresh(cr->o.dir, name, cr->hashes[i]))
            continue;
        char *path = results_path(cr->o.dir, name);
        const char *what = path && is_file(path) ? "stale (graded from other files)"
                                                 : "not graded";
        free(path);
        size_t at = SIZE_MAX;
        for (size_t k = 0; j && k < j->students.n; k++)
            if (strcmp(j->students.names[k], name) == 0)
                at = k;
        if (at != SIZE_MAX)
            printf("  %-20s %s: array task %zu of job %s, log %s/.grader/slurm/logs/%s_%zu.out\n",
                   name, what, at / j->chunk, j->id, cr->o.dir, j->id, at / j->chunk);
        else
            printf("  %-20s %s\n", name, what);
    }
    fflush(stdout);
    return missing ? 1 : skipped;
}

int wait_and_collect(struct class_run *cr, const struct job_record *j)
{
    while (progress_line(cr, j) && !class_cancel) {
        struct timespec ts = { (time_t)cr->o.interval,
                               (long)((cr->o.interval - (double)(time_t)cr->o.interval) * 1e9) };
        nanosleep(&ts, NULL);
    }
    return collect_now(cr, j);
}

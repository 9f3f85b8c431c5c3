/* class.c — `grader class DIR` and `grader collect DIR`: see class.h; the jobs they are made
 * of are listed in class_int.h.
 *
 * Layout of a class directory:
 *   DIR/<student>/exercises/L/T.cu   the student's files, only ever read
 *   DIR/<student>/results.json       written here (Gradescope schema, gradebook.h)
 *   DIR/gradebook.csv, DIR/junit.xml merged from every results.json
 *   DIR/.grader/slurm/               job.json (job id, students, course key), job.sh, logs/
 */
#include "class.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_int.h"
#include "fs.h"
#include "sandbox.h"
#include "util.h"

/* How many of the course's task files the student handed in. */
static size_t handed_in(const struct class_run *cr, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < course_task_count(cr->course); i++) {
        char *f = xasprintf("%s/%s/exercises/%s.cu", cr->o.dir, name,
                            task_id(course_task(cr->course, i)));
        n += is_file(f);
        free(f);
    }
    return n;
}

/* The first line of a run, and one line for each student to grade who handed nothing in;
 * returns how many did hand something in. */
static size_t announce(const struct class_run *cr, const size_t *todo, size_t n_todo)
{
    size_t fresh = count_fresh(cr), forced = 0, handed = 0;
    for (size_t k = 0; k < n_todo; k++)
        forced += results_fresh(cr->o.dir, cr->roster.names[todo[k]], cr->hashes[todo[k]]);
    printf("class %s: %zu students, %zu tasks each; %zu to grade, %zu up to date", cr->o.dir,
           cr->roster.n, course_task_count(cr->course), n_todo, fresh - forced);
    if (forced)
        printf("; --force regrades %zu whose results were up to date", forced);
    printf("\n");
    for (size_t k = 0; k < n_todo; k++) {
        const char *name = cr->roster.names[todo[k]];
        if (handed_in(cr, name)) {
            handed++;
            continue;
        }
        char *ex = xasprintf("%s/%s/exercises", cr->o.dir, name);
        printf("  %-20s %s: every task is graded not submitted\n", name,
               is_dir(ex) ? "handed in no task's file (exercises/L/T.cu)"
                          : "has no exercises/ directory");
        free(ex);
    }
    fflush(stdout);
    return handed;
}

/* ---------------------------------------------------------------- entry points */
int class_main(int argc, char **argv)
{
    struct class_run cr;
    int rc = class_start(argc, argv, 0, &cr);
    if (rc >= 0)
        return rc;
    if (sandbox_unavailable() && !cr.o.no_sandbox) {
        fprintf(stderr, "grader class: refusing to grade: %s (--no-sandbox grades anyway)\n",
                sandbox_unavailable());
        return 1;
    }
    if (cr.o.no_sandbox)
        fputs("grader class: warning: --no-sandbox: student code runs unsandboxed\n", stderr);
    rc = class_setup(&cr);
    if (rc != 0)
        goto out;
    if (cr.o.array_task) {
        rc = array_task(&cr);
        goto out;
    }
    if (mkdir_p(cr.o.work) != 0) {
        fprintf(stderr, "grader class: cannot create %s: %s\n", cr.o.work, strerror(errno));
        rc = 2;
        goto out;
    }
    if (course_key(&cr.o, cr.key) != 0 || hash_students(&cr) != 0) {
        fprintf(stderr, "grader class: cannot hash the course at %s: %s\n", cr.o.root,
                strerror(errno));
        rc = 1;
        goto out;
    }
    size_t n_todo;
    size_t *todo = stale_students(&cr, &n_todo);
    if (!todo) {
        rc = 1;
        goto out;
    }
    size_t handed = announce(&cr, todo, n_todo);
    if (n_todo > 0 && cr.o.course_build && build_course(&cr.o, cr.course) != 0) {
        free(todo);
        rc = 1;
        goto out;
    }
    if (cr.o.slurm) {
        rc = n_todo ? submit(&cr, todo, n_todo) : collect_now(&cr, NULL);
        free(todo);
        goto out;
    }
    double t0 = now_s();
    size_t failed = n_todo ? run_pool(&cr.o, cr.course, &cr.roster, cr.hashes, todo, n_todo) : 0;
    double secs = now_s() - t0;
    free(todo);
    /* a class of students who handed nothing in grades in no time: no rate to speak of */
    if (n_todo > failed && handed)
        printf("graded %zu students in %.1f s: %.2f students per minute\n", n_todo - failed,
               secs, 60.0 * (double)(n_todo - failed) / secs);
    else if (n_todo > failed)
        printf("graded %zu students in %.1f s, none of whom handed anything in\n",
               n_todo - failed, secs);
    rc = collect_now(&cr, NULL);
    if (cr.o.profile)
        class_profile_summary(cr.o.dir, &cr.roster, stdout);
    if (class_cancel)
        rc = 130;
out:
    class_run_free(&cr);
    return rc;
}

int collect_main(int argc, char **argv)
{
    struct class_run cr;
    int rc = class_start(argc, argv, 1, &cr);
    if (rc >= 0)
        return rc;
    struct job_record j;
    char err[512], *stored_root = NULL;
    int have_job = job_read(cr.o.dir, &j, &stored_root, err, sizeof err) == 0;
    if (have_job && stored_root && !cr.o.course_given)
        cr.o.root = stored_root;
    rc = class_setup(&cr);
    if (rc == 0 && have_job) {
        memcpy(cr.key, j.key, sizeof cr.key);
        if (hash_students(&cr) != 0)
            rc = 1;
        else if (cr.o.wait)
            rc = wait_and_collect(&cr, &j);
        else {
            progress_line(&cr, &j);
            rc = collect_now(&cr, &j);
        }
    } else if (rc == 0) {
        /* graded locally: no key recorded, so whatever results exist are taken as they are */
        printf("%s; merging the results present\n", err);
        size_t missing = 0;
        int skipped = 0;
        rc = write_book(cr.course, cr.o.dir, &cr.roster, NULL, &missing, &skipped) != 0 ? 1
             : missing ? 1 : skipped;
        printf("gradebook: %s/gradebook.csv (%zu of %zu students have results)\n", cr.o.dir,
               cr.roster.n - missing, cr.roster.n);
    }
    if (have_job)
        roster_free(&j.students);
    class_run_free(&cr);
    free(stored_root);
    return rc;
}

/* class.c — `grader class DIR`: see class.h; the jobs it is made of are listed in
 * class_int.h.
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

void class_run_free(struct class_run *cr)
{
    for (size_t i = 0; cr->hashes && i < cr->roster.n; i++)
        free(cr->hashes[i]);
    free(cr->hashes);
    roster_free(&cr->roster);
    if (cr->course)
        course_free(cr->course);
    for (size_t i = 0; i < 3; i++)
        free(cr->paths[i]);
}

int class_start(int argc, char **argv, int collect, struct class_run *cr)
{
    memset(cr, 0, sizeof *cr);
    int rc = class_parse_args(argc, argv, &cr->o, collect);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    catch_stop_signals(&class_cancel);
    return -1;
}

/* Loads the course and the class, and hashes every student against `key`. 0 or exit status. */
int class_setup(struct class_run *cr)
{
    struct class_opts *o = &cr->o;
    if (class_resolve_paths(o, cr->paths) != 0) {
        fprintf(stderr, "grader: out of memory\n");
        return 2;
    }
    cr->course = course_load(o->root);
    if (!cr->course || course_task_count(cr->course) == 0) {
        fprintf(stderr, "grader: no tasks in the course at %s (lessons/*/lesson.ini)\n", o->root);
        for (size_t i = 0; cr->course && i < course_error_count(cr->course); i++)
            fprintf(stderr, "  %s\n", course_error(cr->course, i));
        return 2;
    }
    if (roster_scan(o->dir, &cr->roster) != 0) {
        fprintf(stderr, "grader: cannot read %s: %s\n", o->dir, strerror(errno));
        return 2;
    }
    return 0;
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
    printf("class %s: %zu students, %zu tasks each; %zu to grade, %zu up to date\n", cr.o.dir,
           cr.roster.n, course_task_count(cr.course), n_todo, count_fresh(&cr));
    fflush(stdout);
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
    if (n_todo > failed)
        printf("graded %zu students in %.1f s: %.2f students per minute\n", n_todo - failed,
               secs, 60.0 * (double)(n_todo - failed) / secs);
    rc = collect_now(&cr, NULL);
    if (cr.o.profile)
        class_profile_summary(cr.o.dir, &cr.roster, stdout);
    if (class_cancel)
        rc = 130;
out:
    class_run_free(&cr);
    return rc;
}

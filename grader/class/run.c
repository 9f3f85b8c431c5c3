/* run.c — what `grader class` and `grader collect` (class.c) begin with (class_int.h): the
 * options parsed, SIGINT and SIGTERM caught into class_cancel, the course and the class
 * loaded. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_int.h"

volatile sig_atomic_t class_cancel;

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

static int in_roster(const struct roster *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->names[i], name) == 0)
            return 1;
    return 0;
}

/* Loads the course and the class, and hashes every student against `key`. 0 or exit status. */
int class_setup(struct class_run *cr)
{
    struct class_opts *o = &cr->o;
    if (class_resolve_paths(o, cr->paths) != 0) {
        fprintf(stderr, "grader: out of memory\n");
        return 2;
    }
    char *lessons = path_join(o->root, "lessons");
    int is_course = lessons && is_dir(lessons);
    free(lessons);
    if (!is_course) {
        fprintf(stderr, "grader: %s is not a course (it has no lessons/): name the course with "
                        "--course ROOT\n", o->root);
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
    if (cr->roster.n == 0) {
        fprintf(stderr, "grader: %s holds no student: a class is one directory per student, "
                        "each with the student's exercises/\n", o->dir);
        return 2;
    }
    for (size_t i = 0; i < o->n_only; i++)
        if (!in_roster(&cr->roster, o->only[i])) {
            fprintf(stderr, "grader class: --only %s: no such student in %s\n", o->only[i],
                    o->dir);
            return 2;
        }
    return 0;
}

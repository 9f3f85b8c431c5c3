/* main.c — the grader's command line: the TUI on a terminal, text otherwise, --batch for
 * scripts, `doctor`, and `class` / `collect` for instructors. Its options: options.c. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "decide.h"
#include "doctor.h"
#include "fs.h"
#include "gpulock.h"
#include "grade.h"
#include "model.h"
#include "options.h"
#include "remote.h"
#include "report.h"
#include "session.h"
#include "sandbox.h"
#include "state.h"
#include "util.h"

#if __has_include("tui.h")
#include "tui.h"
#define HAVE_TUI 1
#endif
#if __has_include("class.h")
#include "class.h"
#define HAVE_CLASS 1
#endif

/* The directories a grading writes: the exercises' build (when it builds) and its work files.
 * One that cannot be written is the grader's error, said once (exit 2), before any task is
 * graded: never a zero for every task of a read-only course. */
static int check_writable(const struct grade_opts *g)
{
    const char *bd = g->build_dir ? g->build_dir : "build";
    char *exbuild = path_join(g->root, g->exbuild_dir ? g->exbuild_dir : bd);
    char *work = g->work_dir ? path_join(g->root, g->work_dir) : path_join(exbuild, "grader");
    const char *dirs[] = {g->build ? exbuild : NULL, work};
    int rc = -1;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs && rc < 0; i++) {
        char *bad = dirs[i] ? dir_unwritable(dirs[i]) : NULL;
        if (bad) {
            fprintf(stderr, "grader: cannot write %s: %s (the grader builds and keeps its work "
                            "files there)\n", bad, strerror(errno));
            rc = GRADER_EXIT_USAGE;
        }
        free(bad);
    }
    free(exbuild);
    free(work);
    return rc;
}

/* Ctrl-C or SIGTERM: the grading in progress is cancelled (the runner kills the child's whole
 * process group) and the grader exits 130. */
static volatile sig_atomic_t interrupted;

static void catch_interrupts(struct grader_opts *o)
{
    catch_stop_signals(&interrupted);
    o->grade.cancel = &interrupted;
}

/* The lesson.ini error behind a task name that was not found: the name's lesson (L/T), or a
 * lesson whose directory holds T's harness, did not load. NULL when none explains it. */
static const char *broken_lesson_of(const struct course *course, const char *name)
{
    const char *slash = strchr(name, '/');
    for (size_t i = 0; i < course_lesson_count(course); i++) {
        const struct lesson *l = course_lesson(course, i);
        if (!lesson_error(l))
            continue;
        if (slash ? strlen(lesson_id(l)) == (size_t)(slash - name) &&
                        strncmp(lesson_id(l), name, (size_t)(slash - name)) == 0
                  : 0)
            return lesson_error(l);
        char *harness = xasprintf("%s/%s_harness.cu", lesson_dir(l), slash ? slash + 1 : name);
        int there = access(harness, F_OK) == 0;
        free(harness);
        if (there)
            return lesson_error(l);
    }
    return NULL;
}

/* The tasks named (all when none): fills chosen; -1, or an exit status. */
static int choose_tasks(struct course *course, const struct cli *c, struct task **chosen,
                        size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < c->n_tasks; i++) {
        struct task *t = course_find_task(course, c->tasks[i]);
        const char *broken = t ? NULL : broken_lesson_of(course, c->tasks[i]);
        if (broken) { /* the course's trouble, not the command line's: exit 1, as for it */
            fprintf(stderr, "grader: no task '%s': its lesson did not load: %s\n", c->tasks[i],
                    broken);
            return GRADER_EXIT_NOT_ALL;
        }
        const struct task *near = t ? NULL : course_nearest_task(course, c->tasks[i]);
        if (!t) {
            fprintf(stderr, "grader: no task '%s' in this course; %s%s%sgrader --list lists "
                            "them\n", c->tasks[i], near ? "did you mean " : "",
                    near ? task_id(near) : "", near ? "? " : "");
            return GRADER_EXIT_USAGE;
        }
        chosen[(*n)++] = t;
    }
    for (size_t i = 0; !c->n_tasks && i < course_task_count(course) && *n < 1024; i++)
        chosen[(*n)++] = course_task_mut(course, i);
    return -1;
}

/* Every grading takes turns at the GPU through a lock (gpulock.h), one task or many, batch or
 * the TUI: without one of the class's, it is the course build's, named as the class names its
 * own, so that two gradings of this course on this machine never time each other's work; or
 * the file GRADER_GPU_LOCK names, which gradings of other trees (a copy of the course, another
 * course) may name too, to take turns with these. NULL: none to be had (the results then say
 * their times were taken without it). */
static char *own_gpu_lock(const struct grade_opts *g)
{
    const char *named = getenv("GRADER_GPU_LOCK");
    if (named && *named)
        return xstrdup(named);
    char *dir = xasprintf("%s/%s/grader", g->root, g->build_dir ? g->build_dir : "build");
    char *path = mkdir_p(dir) == 0 ? gpu_file_path(dir, g->gpu, ".lock") : NULL;
    free(dir);
    return path;
}

struct graded {
    struct grading_session *s;
    struct task **chosen;
    int chatty;
};

static void take_graded(size_t i, struct task_result *r, void *user)
{
    struct graded *g = user;
    if (interrupted) {
        task_result_free(r);
        return;
    }
    if (session_take(g->s, g->chosen[i], r) != 0)
        fprintf(stderr, "grader: cannot save progress: %s\n", strerror(errno));
    if (g->chatty)
        fprintf(stderr, "graded  %-40s %s (%.1f s)\n", task_id(g->chosen[i]),
                outcome_name(task_outcome(g->chosen[i])), result_duration_s(task_result(g->chosen[i])));
}

/* Grades the selected tasks (all when none are named); fresh saved results are kept unless
 * forced or in batch mode. Returns -1, or an exit status. */
static int grade_selected(struct grading_session *s, struct cli *c, struct grader_opts *o)
{
    struct task *chosen[1024];
    size_t n;
    int rc = choose_tasks(session_course(s), c, chosen, &n);
    if (rc >= 0)
        return rc;
    int chatty = c->verbose || isatty(STDERR_FILENO);
    size_t k = 0; /* the tasks to grade, first in chosen */
    for (size_t i = 0; i < n; i++)
        if (c->batch || o->force || !session_is_fresh(s, chosen[i]))
            chosen[k++] = chosen[i];
    struct grade_batch *batch = grade_batch_build((const struct task *const *)chosen, k, &o->grade);
    if (batch && chatty)
        fprintf(stderr, "built %zu tasks ahead in %u makes (%.1f s)\n", k, grade_batch_makes(batch),
                grade_batch_seconds(batch));
    o->grade.batch = batch;
    unsigned jobs = c->jobs ? c->jobs : JOBS_DEFAULT;
    jobs = grade_many_jobs(&o->grade, jobs);
    if (chatty && k > 1)
        fprintf(stderr, "grading %zu tasks, %u at once\n", k, jobs);
    struct graded g = {s, chosen, chatty};
    if (o->grade.remote) /* the runs in a Slurm job (remote.h) */
        remote_grade_many((const struct task *const *)chosen, k, &o->grade, jobs, take_graded, &g);
    else
        grade_many((const struct task *const *)chosen, k, &o->grade, jobs, take_graded, &g);
    o->grade.batch = NULL;
    grade_batch_free(batch);
    if (interrupted) {
        fprintf(stderr, "\ngrader: interrupted\n");
        return GRADER_EXIT_INTERRUPTED;
    }
    return -1;
}

/* The report, and the exit status of the whole run. */
static int write_report(const struct course *course, const struct cli *c)
{
    FILE *out = c->output ? fopen(c->output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "grader: cannot write %s: %s\n", c->output, strerror(errno));
        return GRADER_EXIT_USAGE;
    }
    if (course_error_count(course) && c->format != REPORT_TEXT)
        for (size_t i = 0; i < course_error_count(course); i++)
            fprintf(stderr, "grader: %s\n", course_error(course, i));
    int wrc = report_write(course, c->format, c->n_tasks > 0, out);
    if (out != stdout)
        wrc |= fclose(out);
    int rc = wrc ? GRADER_EXIT_NOT_ALL : course_exit_status(course);
    if (rc == GRADER_EXIT_SKIPPED)
        fprintf(stderr, "grader: every task was skipped: no usable GPU here (grader doctor "
                        "says why)\n");
    return rc;
}

/* The course and its session, then the TUI, or grading and the report. */
static int run_course(const char *root, struct cli *c, struct grader_opts *o)
{
    char *lessons = path_join(root, "lessons");
    int has_lessons = is_dir(lessons);
    free(lessons);
    if (o->grade.no_sandbox)
        fputs("grader: warning: --no-sandbox: student code runs unsandboxed\n", stderr);
    else if (sandbox_unavailable())
        fprintf(stderr, "grader: warning: %s\n", sandbox_unavailable());
    if (o->grade.no_objcheck)
        fputs("grader: warning: --no-objcheck: what the exercise's object calls is not checked\n",
              stderr);
    struct course *course = has_lessons ? course_load(root) : NULL;
    if (!course || (course_task_count(course) == 0 && course_error_count(course) == 0)) {
        course_free(course);
        return options_usage_error("--root %s: no course there (no lessons/*/lesson.ini)", root);
    }
    if (c->list) {
        for (size_t i = 0; i < course_task_count(course); i++)
            printf("%s\n", task_id(course_task(course, i)));
        for (size_t i = 0; i < course_error_count(course); i++)
            fprintf(stderr, "grader: %s\n", course_error(course, i));
        int rc = course_error_count(course) ? GRADER_EXIT_NOT_ALL : 0;
        course_free(course);
        return rc;
    }
    o->grade.root = course_root(course);
    int rc = options_resolve_copy(c, course_root(course), o);
    if (rc < 0)
        rc = check_writable(&o->grade);
    struct remote_target rt = {0};
    if (rc < 0 && remote_attach(&rt, &c->slurm, o) != 0)
        rc = GRADER_EXIT_USAGE;
    /* Saved progress belongs to the course's own exercises, not to a copy being graded. */
    int use_state = !c->no_state && !o->grade.exercises_dir;
    char *state_path = use_state ? state_default_path(course_root(course)) : NULL;
    o->state_path = state_path;
    struct grading_session *s = rc >= 0 ? NULL
                                        : session_open(course, state_path, !c->batch && !o->force);
    if (session_state_note(s))
        fprintf(stderr, "grader: warning: %s\n", session_state_note(s));
    char *lock = NULL;
    if (s && !o->grade.gpu_lock)
        o->grade.gpu_lock = lock = own_gpu_lock(&o->grade);
    /* gradings one after another (or of several trees) that share one GPU may share the
     * reference's times too, as a class's gradings of one GPU do (refcache.h) */
    const char *refs = getenv("GRADER_REFERENCE_CACHE");
    if (s && !o->grade.ref_cache && refs && *refs)
        o->grade.ref_cache = refs;
#ifdef HAVE_TUI
    if (s && !c->batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && tui_usable())
        rc = tui_main(s, o);
#endif
    if (s && rc < 0) {
        if (o->grade.remote)
            remote_announce(&rt);
        catch_interrupts(o);
        rc = grade_selected(s, c, o);
        if (rc < 0)
            rc = write_report(course, c);
    }
    session_close(s);
    if (lock)
        o->grade.gpu_lock = NULL;
    free(lock);
    free(state_path);
    remote_target_free(&rt);
    course_free(course);
    return rc;
}

static int run_grader(int argc, char **argv)
{
    struct grader_opts o = {0};
    grade_opts_init(&o.grade);
    o.no_color = getenv("NO_COLOR") && *getenv("NO_COLOR");
    struct cli c = {.format = REPORT_TEXT};
    int rc = options_parse(argc, argv, &c, &o);
    if (rc < 0 && c.outcomes) {
        outcome_table_markdown(stdout);
        rc = 0;
    }
    if (rc < 0) {
        char *root = c.root ? xstrdup(c.root) : options_default_root();
        rc = is_dir(root) ? run_course(root, &c, &o)
                          : options_usage_error("--root %s: not a directory", root);
        free(root);
    }
    free(c.exercises);
    free(c.exercises_given);
    free(c.exbuild);
    return rc;
}

static int run_doctor(int argc, char **argv)
{
    static const struct option opts[] = {
        {"root", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *root = NULL;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'r')
            root = optarg;
        else if (c == 'h') {
            puts("usage: grader doctor [--root DIR]   exit 0 ready, 1 some check failed");
            return 0;
        } else if (c == ':')
            return options_usage_error("doctor: %s needs a value", argv[optind - 1]);
        else
            return options_usage_error("doctor: unknown argument '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return options_usage_error("doctor: unknown argument '%s'", argv[optind]);
    char *r = root ? xstrdup(root) : options_default_root();
    int rc = doctor_run(r, stdout);
    free(r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "doctor") == 0)
        return run_doctor(argc - 1, argv + 1);
#ifdef HAVE_CLASS
    if (argc > 1 && strcmp(argv[1], "class") == 0)
        return class_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "collect") == 0)
        return collect_main(argc - 1, argv + 1);
#endif
    return run_grader(argc, argv);
}

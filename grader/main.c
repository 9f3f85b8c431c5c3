/* main.c — the grader's command line: the TUI on a terminal, text otherwise, --batch for
 * scripts, `doctor`, and `class` / `collect` for instructors. Usage: see usage() below. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "grade.h"
#include "model.h"
#include "report.h"
#include "sandbox.h"
#include "state.h"

#if __has_include("tui.h")
#include "tui.h"
#define HAVE_TUI 1
#endif
#if __has_include("class.h")
#include "class.h"
#define HAVE_CLASS 1
#endif

enum { EXIT_ALL_PASSED = 0, EXIT_NOT_ALL = 1, EXIT_USAGE = 2, EXIT_ALL_SKIPPED = 77 };

static void usage(FILE *out)
{
    fputs("usage: grader [OPTIONS]                 the course on a terminal (plain text otherwise)\n"
          "       grader --batch [TASK...] [OPTIONS] grade and report, for scripts and CI\n"
          "       grader doctor [--root DIR]       check toolchain, driver, GPU, terminal\n"
          "       grader class DIR ... | grader collect DIR   grade a class (see grader/README.md)\n"
          "\n"
          "TASK is L/T (03-naive-matmul/matmul_naive) or T alone when unique; none: every task.\n"
          "options:\n"
          "  --root DIR        course root (default: the binary's ../.., else the current dir)\n"
          "  --format F        text | json | csv | junit | gradescope (--batch; default text)\n"
          "  --output FILE     write the report there instead of stdout\n"
          "  --seed N          seed for every task (default: a fresh one per grading)\n"
          "  --no-sanitize     skip compute-sanitizer\n"
          "  --no-build        grade the binaries as built (no make)\n"
          "  --gpu N           CUDA_VISIBLE_DEVICES=N for every child\n"
          "  --timeout S       wall-clock limit of each run of the exercise (default 60)\n"
          "  --build-timeout S wall-clock limit of each build (default 300)\n"
          "  --mem-limit GIB   RLIMIT_DATA of the exercise (default half the RAM; 0: none)\n"
          "  --exercises DIR   a copy of exercises/ to grade (read only)\n"
          "  --exbuild DIR     scratch build dir for that copy's objects and binaries\n"
          "  --force           regrade tasks whose saved result is still fresh\n"
          "  --no-state        neither read nor write .grader/state.json\n"
          "  -v, --verbose     one progress line per task on stderr (also when not a terminal)\n"
          "  -h, --help        this text\n"
          "exit: 0 every graded task passed, 1 some did not, 2 usage error,\n"
          "      77 every graded task was skipped (no usable GPU)\n",
          out);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("grader: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (grader --help)\n", stderr);
    return EXIT_USAGE;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The binary lives in <root>/build/grader/: its ../.. is the course when it has lessons/. */
static char *default_root(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        for (int up = 0; up < 3; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                break;
            *slash = 0;
        }
        char *lessons = NULL;
        if (asprintf(&lessons, "%s/lessons", exe) >= 0 && is_dir(lessons)) {
            free(lessons);
            return strdup(exe);
        }
        free(lessons);
    }
    char cwd[PATH_MAX];
    return strdup(getcwd(cwd, sizeof cwd) ? cwd : ".");
}

struct cli {
    int batch;
    enum report_format format;
    const char *output;
    const char *root;
    int no_state;
    int verbose;
    const char *tasks[256];
    size_t n_tasks;
};

static int parse_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && !errno ? 0 : -1;
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct cli *c, struct grader_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--root") == 0 || strcmp(a, "--format") == 0 ||
                    strcmp(a, "--output") == 0 || strcmp(a, "--seed") == 0 ||
                    strcmp(a, "--gpu") == 0 || strcmp(a, "--timeout") == 0 ||
                    strcmp(a, "--build-timeout") == 0 ||
                    strcmp(a, "--mem-limit") == 0 ||
                    strcmp(a, "--exercises") == 0 || strcmp(a, "--exbuild") == 0;
        if (takes && !next)
            return usage_error("%s needs a value", a);
        double v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--batch") == 0) {
            c->batch = 1;
        } else if (strcmp(a, "--no-sanitize") == 0) {
            o->grade.sanitize = 0;
        } else if (strcmp(a, "--no-build") == 0) {
            o->grade.build = 0;
        } else if (strcmp(a, "--force") == 0) {
            o->force = 1;
        } else if (strcmp(a, "--no-state") == 0) {
            c->no_state = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            c->verbose = 1;
        } else if (strcmp(a, "--no-color") == 0) {
            o->no_color = 1;
        } else if (strcmp(a, "--root") == 0) {
            c->root = argv[++i];
        } else if (strcmp(a, "--output") == 0) {
            c->output = argv[++i];
        } else if (strcmp(a, "--exercises") == 0) {
            o->grade.exercises_dir = argv[++i];
        } else if (strcmp(a, "--exbuild") == 0) {
            o->grade.exbuild_dir = argv[++i];
        } else if (strcmp(a, "--format") == 0) {
            if (report_format_parse(argv[++i], &c->format) != 0)
                return usage_error("unknown format '%s' (text, json, csv, junit, gradescope)",
                                   argv[i]);
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(argv[++i], &end, 10);
            if (end == argv[i] || *end || errno || argv[i][0] == '-')
                return usage_error("--seed wants a non-negative integer, not '%s'", argv[i]);
            o->grade.seed = s;
            o->grade.seed_set = 1;
        } else if (strcmp(a, "--gpu") == 0) {
            if (parse_number(argv[++i], &v) != 0 || v < 0 || v != (int)v)
                return usage_error("--gpu wants a device index, not '%s'", argv[i]);
            o->grade.gpu = (int)v;
        } else if (strcmp(a, "--timeout") == 0) {
            if (parse_number(argv[++i], &v) != 0 || v <= 0)
                return usage_error("--timeout wants seconds > 0, not '%s'", argv[i]);
            o->grade.run_timeout_s = v;
        } else if (strcmp(a, "--build-timeout") == 0) {
            if (parse_number(argv[++i], &v) != 0 || v <= 0)
                return usage_error("--build-timeout wants seconds > 0, not '%s'", argv[i]);
            o->grade.build_timeout_s = v;
        } else if (strcmp(a, "--mem-limit") == 0) {
            if (parse_number(argv[++i], &v) != 0 || v < 0)
                return usage_error("--mem-limit wants GiB >= 0, not '%s'", argv[i]);
            o->grade.mem_limit_bytes = (unsigned long long)(v * (1ull << 30));
        } else if (a[0] == '-') {
            return usage_error("unknown option '%s'", a);
        } else if (c->n_tasks < sizeof c->tasks / sizeof c->tasks[0]) {
            c->tasks[c->n_tasks++] = a;
        } else {
            return usage_error("too many tasks named (from '%s')", a);
        }
    }
    if (c->n_tasks && !c->batch)
        return usage_error("tasks are named with --batch ('%s')", c->tasks[0]);
    return -1;
}

/* Grades the selected tasks (all when none are named); fresh saved results are kept unless
 * forced or in batch mode. */
static int grade_selected(struct course *course, struct cli *c, struct grader_opts *o,
                          struct grader_state *state)
{
    struct task *chosen[1024];
    size_t n = 0;
    if (c->n_tasks) {
        for (size_t i = 0; i < c->n_tasks; i++) {
            struct task *t = course_find_task(course, c->tasks[i]);
            if (!t)
                return usage_error("no task '%s' in this course (grader --batch --format text "
                                   "lists them)", c->tasks[i]);
            chosen[n++] = t;
        }
    } else {
        for (size_t i = 0; i < course_task_count(course) && n < 1024; i++)
            chosen[n++] = course_task_mut(course, i);
    }
    int chatty = c->verbose || isatty(STDERR_FILENO);
    for (size_t i = 0; i < n; i++) {
        if (!c->batch && !o->force && state && state_is_fresh(state, chosen[i]) &&
            task_result(chosen[i]))
            continue;
        if (chatty)
            fprintf(stderr, "grading %-40s ", task_id(chosen[i]));
        task_set_result(chosen[i], grade_task(chosen[i], &o->grade));
        if (chatty)
            fprintf(stderr, "%s (%.1f s)\n", outcome_name(task_outcome(chosen[i])),
                    result_duration_s(task_result(chosen[i])));
        if (state) {
            state_record(state, chosen[i]);
            state_save(state, o->state_path);
        }
    }
    return -1;
}

static int exit_status(const struct course *c)
{
    size_t graded = 0, passed = 0, skipped = 0;
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!task_result(t))
            continue;
        graded++;
        passed += task_outcome(t) == OUTCOME_PASSED;
        skipped += task_outcome(t) == OUTCOME_SKIPPED;
    }
    if (graded && skipped == graded)
        return EXIT_ALL_SKIPPED;
    return graded && passed + skipped == graded && course_error_count(c) == 0 ? EXIT_ALL_PASSED
                                                                              : EXIT_NOT_ALL;
}

static int run_grader(int argc, char **argv)
{
    struct grader_opts o = {0};
    grade_opts_init(&o.grade);
    o.no_color = getenv("NO_COLOR") && *getenv("NO_COLOR");
    struct cli c = {.format = REPORT_TEXT};
    int rc = parse_args(argc, argv, &c, &o);
    if (rc >= 0)
        return rc;
    char *root = c.root ? strdup(c.root) : default_root();
    if (!is_dir(root)) {
        rc = usage_error("--root %s: not a directory", root);
        free(root);
        return rc;
    }
    if (sandbox_unavailable())
        fprintf(stderr, "grader: warning: %s\n", sandbox_unavailable());
    struct course *course = course_load(root);
    o.grade.root = course_root(course);
    /* Saved progress belongs to the course's own exercises, not to a copy being graded. */
    int use_state = !c.no_state && !o.grade.exercises_dir;
    char *state_path = use_state ? state_default_path(course_root(course)) : NULL;
    o.state_path = state_path;
    struct grader_state *state = use_state ? state_load(state_path) : NULL;
    if (state && !c.batch && !o.force)
        state_apply(state, course);

#ifdef HAVE_TUI
    if (!c.batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
        rc = tui_main(course, &o);
        state_free(state);
        free(state_path);
        course_free(course);
        free(root);
        return rc;
    }
#endif
    rc = grade_selected(course, &c, &o, state);
    if (rc < 0) {
        FILE *out = c.output ? fopen(c.output, "w") : stdout;
        if (!out) {
            fprintf(stderr, "grader: cannot write %s: %s\n", c.output, strerror(errno));
            rc = EXIT_USAGE;
        } else {
            if (course_error_count(course) && c.format != REPORT_TEXT)
                for (size_t i = 0; i < course_error_count(course); i++)
                    fprintf(stderr, "grader: %s\n", course_error(course, i));
            int wrc = report_write(course, c.format, c.n_tasks > 0, out);
            if (out != stdout)
                wrc |= fclose(out);
            rc = wrc ? EXIT_NOT_ALL : exit_status(course);
        }
    }
    state_free(state);
    free(state_path);
    course_free(course);
    free(root);
    return rc;
}

static int run_doctor(int argc, char **argv)
{
    const char *root = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
            root = argv[++i];
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            puts("usage: grader doctor [--root DIR]   exit 0 ready, 1 some check failed");
            return 0;
        } else
            return usage_error("doctor: unknown argument '%s'", argv[i]);
    }
    char *r = root ? strdup(root) : default_root();
    int rc = doctor_run(r, stdout);
    free(r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "doctor") == 0)
        return run_doctor(argc, argv);
#ifdef HAVE_CLASS
    if (argc > 1 && strcmp(argv[1], "class") == 0)
        return class_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "collect") == 0)
        return collect_main(argc - 1, argv + 1);
#endif
    return run_grader(argc, argv);
}

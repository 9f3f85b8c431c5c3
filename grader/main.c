/* main.c — the grader's command line: the TUI on a terminal, text otherwise, --batch for
 * scripts, `doctor`, and `class` / `collect` for instructors. Usage: see usage() below. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
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

/* The longest --timeout: a week. Longer is a typing error, and inf or nan would never end. */
#define TIMEOUT_MAX_S (7 * 24 * 3600.0)

/* Tasks graded at once by default: while one holds the GPU for its timed run, the others
 * build, verify and sanitize. On the H200 four graded the course in 38-41 s where one at a
 * time took 53 s, in one call (grader/README.md); eight took 34 s, with twice the processes
 * beside every timed run. */
#define JOBS_DEFAULT 4
#define JOBS_MAX 64

static void usage(FILE *out)
{
    fputs("usage: grader [OPTIONS]                 the course on a terminal (plain text otherwise)\n"
          "       grader --batch [TASK...] [OPTIONS] grade and report, for scripts and CI\n"
          "       grader doctor [--root DIR]       check toolchain, driver, GPU, terminal\n"
          "       grader class DIR ... | grader collect DIR   grade a class (see grader/README.md)\n"
          "       grader --outcomes                the outcome table (Markdown)\n"
          "       grader --list [--root DIR]       the course's task ids, one a line\n"
          "\n"
          "TASK is L/T (03-naive-matmul/matmul_naive) or T alone when unique; none: every task.\n"
          "options:\n"
          "  --root DIR        course root (default: the binary's ../.., else the current dir)\n"
          "  --format F        text | json | csv | junit | gradescope | tap (--batch; default text)\n"
          "  --output FILE     write the report there instead of stdout\n"
          "  --seed N          seed for every task (default: a fresh one per grading)\n"
          "  --no-sanitize     skip compute-sanitizer\n"
          "  --ncu-share P     cross-check the speed under ncu for this share of the gradings\n"
          "                    (0-1, default 0.1), and always when 10 % faster than the reference\n"
          "  --ncu PATH        the ncu to use (default: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)\n"
          "  --profile         profile the speed case of every correct task and the reference's\n"
          "                    under ncu: the digest says why it is slower (never the verdict)\n"
          "  --no-build        grade the binaries as built (no make)\n"
          "  --no-sandbox      run student code without bubblewrap (to measure what it costs)\n"
          "  --no-objcheck     skip the check of what the object calls (to test the sandbox alone)\n"
          "  --no-witness      take no witness of the timed calls (to measure what it costs)\n"
          "  --gpu N           CUDA_VISIBLE_DEVICES=N for every child\n"
          "  -j, --jobs N      tasks graded at once, taking turns for the timed runs (default 4)\n"
          "  --timeout S       wall-clock limit of each run of the exercise (default 60)\n"
          "  --build-timeout S wall-clock limit of each build (default 300)\n"
          "  --mem-limit GIB   RLIMIT_DATA of the exercise (default half the RAM; 0: none)\n"
          "  --exercises DIR   a copy of exercises/ to grade (read only)\n"
          "  --exbuild DIR     scratch build dir for that copy (default: a fresh one)\n"
          "  --force           regrade tasks whose saved result is still fresh\n"
          "  --no-state        neither read nor write .grader/state.json\n"
          "  --no-color        no colours in the interactive course\n"
          "  -v, --verbose     one progress line per task on stderr (also when not a terminal)\n"
          "  -h, --help        this text\n" REMOTE_USAGE
          "exit: 0 every graded task passed, 1 some did not (or a lesson.ini is broken),\n"
          "      2 usage error, 77 every graded task was skipped (no usable GPU), 130 interrupted\n",
          out);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("grader: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (grader --help)\n", stderr);
    return GRADER_EXIT_USAGE;
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
        char *lessons = path_join(exe, "lessons");
        int found = is_dir(lessons);
        free(lessons);
        if (found)
            return xstrdup(exe);
    }
    char cwd[PATH_MAX];
    return xstrdup(getcwd(cwd, sizeof cwd) ? cwd : ".");
}

struct cli {
    int batch, outcomes, list;
    enum report_format format;
    const char *output;
    const char *root;
    int no_state;
    int verbose;
    unsigned jobs;      /* tasks graded at once; 0: JOBS_DEFAULT */
    const char *tasks[256];
    size_t n_tasks;
    char *exercises, *exbuild; /* absolute, malloc'd */
    char *exercises_given;     /* --exercises as given, absolute, links kept (owntree.h) */
    struct remote_flags slurm; /* --slurm and its options (remote.h) */
};

enum {
    OPT_BATCH = 256, OPT_ROOT, OPT_FORMAT, OPT_OUTPUT, OPT_SEED, OPT_NO_SANITIZE, OPT_NO_BUILD,
    OPT_GPU, OPT_TIMEOUT, OPT_MEM_LIMIT, OPT_EXERCISES, OPT_EXBUILD, OPT_FORCE, OPT_NO_STATE,
    OPT_NO_COLOR, OPT_OUTCOMES, OPT_BUILD_TIMEOUT, OPT_NO_SANDBOX, OPT_NO_OBJCHECK, OPT_NO_WITNESS,
    OPT_NCU_SHARE, OPT_NCU, OPT_JOBS, OPT_PROFILE, OPT_LIST,
};

static const struct option long_opts[] = {
    {"batch", no_argument, NULL, OPT_BATCH},
    {"root", required_argument, NULL, OPT_ROOT},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"no-sanitize", no_argument, NULL, OPT_NO_SANITIZE},
    {"ncu-share", required_argument, NULL, OPT_NCU_SHARE},
    {"ncu", required_argument, NULL, OPT_NCU},
    {"profile", no_argument, NULL, OPT_PROFILE},
    {"no-build", no_argument, NULL, OPT_NO_BUILD},
    {"no-sandbox", no_argument, NULL, OPT_NO_SANDBOX},
    {"no-objcheck", no_argument, NULL, OPT_NO_OBJCHECK},
    {"no-witness", no_argument, NULL, OPT_NO_WITNESS},
    {"gpu", required_argument, NULL, OPT_GPU},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"build-timeout", required_argument, NULL, OPT_BUILD_TIMEOUT},
    {"mem-limit", required_argument, NULL, OPT_MEM_LIMIT},
    {"exercises", required_argument, NULL, OPT_EXERCISES},
    {"exbuild", required_argument, NULL, OPT_EXBUILD},
    {"force", no_argument, NULL, OPT_FORCE},
    {"no-state", no_argument, NULL, OPT_NO_STATE},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"outcomes", no_argument, NULL, OPT_OUTCOMES},
    {"list", no_argument, NULL, OPT_LIST},
    REMOTE_LONG_OPTIONS,
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A finite number, the whole string; 0 or -1. */
static int parse_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && !errno && isfinite(*v) ? 0 : -1;
}

/* One option with its value (getopt_long's code c). Returns -1 to go on, else an exit status. */
static int take_value(int c, const char *v, struct cli *cl, struct grader_opts *o)
{
    double x;
    char *end, err[160];
    if (c >= REMOTE_OPT_SLURM && c <= REMOTE_OPT_QUEUE_LIMIT)
        return remote_flag(&cl->slurm, c, v, err, sizeof err) == 0 ? -1 : usage_error("%s", err);
    switch (c) {
    case OPT_ROOT: cl->root = v; return -1;
    case OPT_OUTPUT: cl->output = v; return -1;
    case OPT_EXERCISES: set_str(&cl->exercises, v); return -1;
    case OPT_EXBUILD: set_str(&cl->exbuild, v); return -1;
    case OPT_NCU: o->grade.ncu = v; return -1;
    case OPT_NCU_SHARE:
        if (parse_number(v, &x) != 0 || x < 0 || x > 1)
            return usage_error("--ncu-share wants a share from 0 to 1, not '%s'", v);
        o->grade.ncu_share = x;
        return -1;
    case OPT_FORMAT:
        if (report_format_parse(v, &cl->format) == 0)
            return -1;
        return usage_error("unknown format '%s' (text, json, csv, junit, gradescope, tap)", v);
    case OPT_SEED:
        errno = 0;
        o->grade.seed = strtoull(v, &end, 10);
        if (end == v || *end || errno || v[0] == '-')
            return usage_error("--seed wants a non-negative integer, not '%s'", v);
        o->grade.seed_set = 1;
        return -1;
    case OPT_GPU:
        errno = 0;
        long g = strtol(v, &end, 10);
        if (end == v || *end || errno || g < 0 || g > INT_MAX)
            return usage_error("--gpu wants a device index, from 0 to 2147483647, not '%s'", v);
        o->grade.gpu = (int)g;
        return -1;
    case OPT_JOBS:
        errno = 0;
        long n = strtol(v, &end, 10);
        if (end == v || *end || errno || n < 1 || n > JOBS_MAX)
            return usage_error("--jobs wants a count from 1 to 64, not '%s'", v);
        cl->jobs = (unsigned)n;
        return -1;
    case OPT_TIMEOUT:
        if (parse_number(v, &x) != 0 || x <= 0 || x > TIMEOUT_MAX_S)
            return usage_error("--timeout wants seconds, more than 0 and at most a week, not '%s'", v);
        o->grade.run_timeout_s = x;
        return -1;
    case OPT_BUILD_TIMEOUT:
        if (parse_number(v, &x) != 0 || x <= 0 || x > TIMEOUT_MAX_S)
            return usage_error("--build-timeout wants seconds, more than 0 and at most a week, "
                               "not '%s'", v);
        o->grade.build_timeout_s = x;
        return -1;
    case OPT_MEM_LIMIT:
        if (parse_number(v, &x) != 0 || x < 0 || x > 1 << 20)
            return usage_error("--mem-limit wants GiB >= 0, not '%s'", v);
        o->grade.mem_limit_bytes = (unsigned long long)(x * (1ull << 30));
        return -1;
    }
    return usage_error("unhandled option%s", "");
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct cli *cl, struct grader_opts *o)
{
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":vhj:", long_opts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return 0;
        case 'v': cl->verbose = 1; break;
        case OPT_BATCH: cl->batch = 1; break;
        case OPT_OUTCOMES: cl->outcomes = 1; break;
        case OPT_LIST: cl->list = 1; break;
        case OPT_NO_SANITIZE: o->grade.sanitize = 0; break;
        case OPT_PROFILE: o->grade.profile_args = profile_ncu_args(); break;
        case OPT_NO_BUILD: o->grade.build = 0; break;
        case OPT_NO_SANDBOX: o->grade.no_sandbox = 1; break;
        case OPT_NO_WITNESS: o->grade.no_witness = 1; break;
        case OPT_NO_OBJCHECK: o->grade.no_objcheck = 1; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_NO_STATE: cl->no_state = 1; break;
        case OPT_NO_COLOR: o->no_color = 1; break;
        case 'j': {
            int rc = take_value(OPT_JOBS, optarg, cl, o);
            if (rc >= 0)
                return rc;
            break;
        }
        case ':': return usage_error("%s needs a value", argv[optind - 1]);
        case '?': return usage_error("unknown option '%s'", argv[optind - 1]);
        default: {
            int rc = take_value(c, optarg, cl, o);
            if (rc >= 0)
                return rc;
        }
        }
    }
    for (int i = optind; i < argc; i++) {
        if (cl->n_tasks == sizeof cl->tasks / sizeof cl->tasks[0])
            return usage_error("too many tasks named (from '%s')", argv[i]);
        cl->tasks[cl->n_tasks++] = argv[i];
    }
    if (cl->list && (cl->batch || cl->n_tasks))
        return usage_error("--list grades nothing: it takes no tasks and no --batch%s", "");
    if (cl->n_tasks && !cl->batch)
        return usage_error("tasks are named with --batch ('%s')", cl->tasks[0]);
    return -1;
}

/* A copy of exercises/ must be a directory; without --exbuild its objects and binaries go to
 * a fresh scratch directory (under the course's build dir, else the temporary dir), never to
 * the course's own build, whose binaries are the course's exercises, not the copy's. */
static int resolve_copy(struct cli *cl, const char *root, struct grader_opts *o)
{
    if (!cl->exercises)
        return -1;
    char *abs = realpath(cl->exercises, NULL);
    if (!abs || !is_dir(abs)) {
        free(abs);
        return usage_error("--exercises %s: not a directory", cl->exercises);
    }
    char *cwd = cl->exercises[0] == '/' ? NULL : getcwd(NULL, 0);
    cl->exercises_given = cwd ? xasprintf("%s/%s", cwd, cl->exercises) : xstrdup(cl->exercises);
    free(cwd);
    o->grade.own_exercises = cl->exercises_given;
    free(cl->exercises);
    cl->exercises = abs;
    o->grade.exercises_dir = cl->exercises;
    if (!cl->exbuild) {
        char *base = xasprintf("%s/%s/grader-copies", root, o->grade.build_dir);
        char *tmpl = xasprintf("%s/run-XXXXXX", base);
        if (mkdir_p(base) != 0 || !mkdtemp(tmpl)) {
            const char *tmp = getenv("TMPDIR");
            free(tmpl);
            tmpl = xasprintf("%s/grader-exbuild-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            if (!mkdtemp(tmpl)) {
                fprintf(stderr, "grader: cannot create a scratch directory: %s\n", strerror(errno));
                free(base);
                free(tmpl);
                return GRADER_EXIT_NOT_ALL;
            }
        }
        free(base);
        cl->exbuild = tmpl;
    }
    o->grade.exbuild_dir = cl->exbuild;
    return -1;
}

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
 * own, so that two gradings of this course on this machine never time each other's work.
 * NULL: none to be had (the results then say their times were taken without it). */
static char *own_gpu_lock(const struct grade_opts *g)
{
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
        return usage_error("--root %s: no course there (no lessons/*/lesson.ini)", root);
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
    int rc = resolve_copy(c, course_root(course), o);
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
    int rc = parse_args(argc, argv, &c, &o);
    if (rc < 0 && c.outcomes) {
        outcome_table_markdown(stdout);
        rc = 0;
    }
    if (rc < 0) {
        char *root = c.root ? xstrdup(c.root) : default_root();
        rc = is_dir(root) ? run_course(root, &c, &o)
                          : usage_error("--root %s: not a directory", root);
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
            return usage_error("doctor: %s needs a value", argv[optind - 1]);
        else
            return usage_error("doctor: unknown argument '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return usage_error("doctor: unknown argument '%s'", argv[optind]);
    char *r = root ? xstrdup(root) : default_root();
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

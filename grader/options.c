/* options.c — the grader's command line (options.h): usage, getopt_long over the options of
 * grader/README.md, the course root, a copy's scratch directory. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "fs.h"
#include "session.h"
#include "util.h"

/* The longest --timeout: a week. Longer is a typing error, and inf or nan would never end. */
#define TIMEOUT_MAX_S (7 * 24 * 3600.0)

#define JOBS_MAX 64

void options_usage(FILE *out)
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

int options_usage_error(const char *fmt, const char *arg)
{
    fputs("grader: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (grader --help)\n", stderr);
    return GRADER_EXIT_USAGE;
}

/* The binary lives in <root>/build/grader/: its ../.. is the course when it has lessons/. */
char *options_default_root(void)
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
        return remote_flag(&cl->slurm, c, v, err, sizeof err) == 0 ? -1 : options_usage_error("%s", err);
    switch (c) {
    case OPT_ROOT: cl->root = v; return -1;
    case OPT_OUTPUT: cl->output = v; return -1;
    case OPT_EXERCISES: set_str(&cl->exercises, v); return -1;
    case OPT_EXBUILD: set_str(&cl->exbuild, v); return -1;
    case OPT_NCU: o->grade.ncu = v; return -1;
    case OPT_NCU_SHARE:
        if (parse_number(v, &x) != 0 || x < 0 || x > 1)
            return options_usage_error("--ncu-share wants a share from 0 to 1, not '%s'", v);
        o->grade.ncu_share = x;
        return -1;
    case OPT_FORMAT:
        if (report_format_parse(v, &cl->format) == 0)
            return -1;
        return options_usage_error("unknown format '%s' (text, json, csv, junit, gradescope, tap)", v);
    case OPT_SEED:
        errno = 0;
        o->grade.seed = strtoull(v, &end, 10);
        if (end == v || *end || errno || v[0] == '-')
            return options_usage_error("--seed wants a non-negative integer, not '%s'", v);
        o->grade.seed_set = 1;
        return -1;
    case OPT_GPU:
        errno = 0;
        long g = strtol(v, &end, 10);
        if (end == v || *end || errno || g < 0 || g > INT_MAX)
            return options_usage_error("--gpu wants a device index, from 0 to 2147483647, not '%s'", v);
        o->grade.gpu = (int)g;
        return -1;
    case OPT_JOBS:
        errno = 0;
        long n = strtol(v, &end, 10);
        if (end == v || *end || errno || n < 1 || n > JOBS_MAX)
            return options_usage_error("--jobs wants a count from 1 to 64, not '%s'", v);
        cl->jobs = (unsigned)n;
        return -1;
    case OPT_TIMEOUT:
        if (parse_number(v, &x) != 0 || x <= 0 || x > TIMEOUT_MAX_S)
            return options_usage_error("--timeout wants seconds, more than 0 and at most a week, not '%s'", v);
        o->grade.run_timeout_s = x;
        return -1;
    case OPT_BUILD_TIMEOUT:
        if (parse_number(v, &x) != 0 || x <= 0 || x > TIMEOUT_MAX_S)
            return options_usage_error("--build-timeout wants seconds, more than 0 and at most a week, "
                               "not '%s'", v);
        o->grade.build_timeout_s = x;
        return -1;
    case OPT_MEM_LIMIT:
        if (parse_number(v, &x) != 0 || x < 0 || x > 1 << 20)
            return options_usage_error("--mem-limit wants GiB >= 0, not '%s'", v);
        o->grade.mem_limit_bytes = (unsigned long long)(x * (1ull << 30));
        return -1;
    }
    return options_usage_error("unhandled option%s", "");
}

/* Returns -1 to go on, else an exit status. */
int options_parse(int argc, char **argv, struct cli *cl, struct grader_opts *o)
{
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":vhj:", long_opts, NULL)) != -1) {
        switch (c) {
        case 'h': options_usage(stdout); return 0;
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
        case ':': return options_usage_error("%s needs a value", argv[optind - 1]);
        case '?': return options_usage_error("unknown option '%s'", argv[optind - 1]);
        default: {
            int rc = take_value(c, optarg, cl, o);
            if (rc >= 0)
                return rc;
        }
        }
    }
    for (int i = optind; i < argc; i++) {
        if (cl->n_tasks == sizeof cl->tasks / sizeof cl->tasks[0])
            return options_usage_error("too many tasks named (from '%s')", argv[i]);
        cl->tasks[cl->n_tasks++] = argv[i];
    }
    if (cl->list && (cl->batch || cl->n_tasks))
        return options_usage_error("--list grades nothing: it takes no tasks and no --batch%s", "");
    if (cl->n_tasks && !cl->batch)
        return options_usage_error("tasks are named with --batch ('%s')", cl->tasks[0]);
    return -1;
}

/* A copy of exercises/ must be a directory; without --exbuild its objects and binaries go to
 * a fresh scratch directory (under the course's build dir, else the temporary dir), never to
 * the course's own build, whose binaries are the course's exercises, not the copy's. */
int options_resolve_copy(struct cli *cl, const char *root, struct grader_opts *o)
{
    if (!cl->exercises)
        return -1;
    char *abs = realpath(cl->exercises, NULL);
    if (!abs || !is_dir(abs)) {
        free(abs);
        return options_usage_error("--exercises %s: not a directory", cl->exercises);
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

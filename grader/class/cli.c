/* cli.c — the options of `grader class` and `grader collect` (getopt_long), and the class's
 * paths made absolute (class_int.h). A bad option or value is one line on stderr, exit 2. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "class_int.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: grader class DIR [options]     grade every DIR/<student>/exercises\n"
        "       grader collect DIR [--course ROOT] [--wait] [--interval S]\n"
        "\n"
        "  --course ROOT      the course (Makefile, lessons/, solutions/); default .\n"
        "  --build DIR        the course's build directory; default build\n"
        "  --work DIR         scratch builds, one directory per student;\n"
        "                     default $TMPDIR/grader-class-<uid>/<class hash>\n"
        "  --gpus 0,1,...     the GPUs to grade on (CUDA_VISIBLE_DEVICES of each run)\n"
        "  --jobs N           students at once for each GPU: their builds and checks overlap,\n"
        "                     their timed runs take turns; on several GPUs each on its own,\n"
        "                     and once no student waits each task to the least busy one\n"
        "                     (default: a quarter of each GPU's share of the cores, 1-4)\n"
        "  --reference-every N  time the reference afresh after N gradings on a GPU, or when its\n"
        "                     time is five minutes old (default 20; 1: for every grading)\n"
        "  --seed N           class seed; each student's seed derives from it (default 1)\n"
        "  --timeout S        wall-clock limit of each run of student code\n"
        "  --build-timeout S  limit of each task's build step\n"
        "  --make-timeout S   limit of the make that builds the course once (default 600)\n"
        "  --no-sanitize      skip compute-sanitizer\n"
        "  --ncu-share P      cross-check the speed under ncu for this share of the gradings\n"
        "                     (0-1, default 0.1), and always when 10 %% faster than the reference\n"
        "  --profile          profile every correct task under ncu, and print per task what the\n"
        "                     digests found (not with --slurm)\n"
        "  --force            regrade students whose results are up to date\n"
        "  --only NAME        grade only this student (repeatable)\n"
        "  --keep-work        keep the scratch builds\n"
        "  --no-course-build  the course is built already: do not run make for it first\n"
        "  --no-sandbox       run student code without bubblewrap (needed where it cannot run)\n"
        "\n"
        "  --slurm            submit an sbatch job array instead of grading here\n"
        "  --chunk N          students per array task (default 1)\n"
        "  --time T  --mem M  --cpus N  --gres G  --partition P  --account A\n"
        "                     per array task (defaults: 30 min, 16G, 4, gpu:1)\n"
        "  --max-parallel N   at most N array tasks at once\n"
        "  --sbatch-arg OPT   one more #SBATCH option, verbatim (repeatable)\n"
        "  --dry-run          write the job script, do not submit it\n"
        "  --wait             after submitting, report progress until the job is done, then\n"
        "                     collect (also for collect); --interval S between reports\n");
}

int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int parse_pos_double(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

static int parse_share(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v <= 1))
        return -1;
    *out = v;
    return 0;
}

/* The bounds of the values parsed below, which the error lines name too. */
enum { GPU_INDEX_MAX = 1024, JOBS_MAX = 1024, REF_EVERY_MAX = 1000000 };

static int parse_gpus(const char *s, struct class_opts *o)
{
    o->n_gpus = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > GPU_INDEX_MAX || o->n_gpus == MAX_GPUS || (*end && *end != ','))
            return -1;
        o->gpus[o->n_gpus++] = (int)v;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            return -1;
    }
    return o->n_gpus ? 0 : -1;
}

enum {
    O_COURSE = 256, O_WAIT, O_INTERVAL, O_BUILD, O_WORK, O_GPUS, O_JOBS, O_REF_EVERY, O_SEED, O_TIMEOUT,
    O_BUILD_TIMEOUT, O_MAKE_TIMEOUT, O_NO_SANITIZE, O_FORCE, O_KEEP_WORK, O_NO_COURSE_BUILD,
    O_NO_SANDBOX, O_ARRAY_TASK, O_ONLY, O_SLURM, O_DRY_RUN, O_CHUNK, O_MAX_PARALLEL, O_TIME,
    O_MEM, O_CPUS, O_GRES, O_PARTITION, O_ACCOUNT, O_SBATCH_ARG, O_NCU_SHARE, O_PROFILE
};

/* collect takes these; class takes them all */
#define COLLECT_OPTIONS                                   \
    { "course", required_argument, NULL, O_COURSE },     \
    { "wait", no_argument, NULL, O_WAIT },               \
    { "interval", required_argument, NULL, O_INTERVAL }, \
    { "help", no_argument, NULL, 'h' }

static const struct option class_options[] = {
    COLLECT_OPTIONS,
    { "build", required_argument, NULL, O_BUILD },
    { "work", required_argument, NULL, O_WORK },
    { "gpus", required_argument, NULL, O_GPUS },
    { "jobs", required_argument, NULL, O_JOBS },
    { "reference-every", required_argument, NULL, O_REF_EVERY },
    { "seed", required_argument, NULL, O_SEED },
    { "timeout", required_argument, NULL, O_TIMEOUT },
    { "build-timeout", required_argument, NULL, O_BUILD_TIMEOUT },
    { "make-timeout", required_argument, NULL, O_MAKE_TIMEOUT },
    { "no-sanitize", no_argument, NULL, O_NO_SANITIZE },
    { "ncu-share", required_argument, NULL, O_NCU_SHARE },
    { "profile", no_argument, NULL, O_PROFILE },
    { "force", no_argument, NULL, O_FORCE },
    { "keep-work", no_argument, NULL, O_KEEP_WORK },
    { "no-course-build", no_argument, NULL, O_NO_COURSE_BUILD },
    { "no-sandbox", no_argument, NULL, O_NO_SANDBOX },
    { "array-task", no_argument, NULL, O_ARRAY_TASK },
    { "only", required_argument, NULL, O_ONLY },
    { "slurm", no_argument, NULL, O_SLURM },
    { "dry-run", no_argument, NULL, O_DRY_RUN },
    { "chunk", required_argument, NULL, O_CHUNK },
    { "max-parallel", required_argument, NULL, O_MAX_PARALLEL },
    { "time", required_argument, NULL, O_TIME },
    { "mem", required_argument, NULL, O_MEM },
    { "cpus", required_argument, NULL, O_CPUS },
    { "gres", required_argument, NULL, O_GRES },
    { "partition", required_argument, NULL, O_PARTITION },
    { "account", required_argument, NULL, O_ACCOUNT },
    { "sbatch-arg", required_argument, NULL, O_SBATCH_ARG },
    { NULL, 0, NULL, 0 },
};
static const struct option collect_options[] = {
    COLLECT_OPTIONS,
    { NULL, 0, NULL, 0 },
};

static int parse_count(const char *v, uint64_t lo, uint64_t hi, size_t *out)
{
    uint64_t n;
    if (parse_u64(v, &n) || n < lo || n > hi)
        return -1;
    *out = (size_t)n;
    return 0;
}

static int push_value(const char **list, size_t *n, size_t max, const char *v)
{
    if (*n == max)
        return -1;
    list[(*n)++] = v;
    return 0;
}

/* What an option's value may be, for its error line (the bounds set_value parses with); ""
 * where any text serves. */
static const char *value_wanted(int opt, char *buf, size_t len)
{
    switch (opt) {
    case O_GPUS:
        snprintf(buf, len, "device indexes 0 to %d, comma-separated, at most %d of them",
                 GPU_INDEX_MAX, MAX_GPUS);
        return buf;
    case O_JOBS: snprintf(buf, len, "a whole number from 1 to %d", JOBS_MAX); return buf;
    case O_REF_EVERY: snprintf(buf, len, "a whole number from 1 to %d", REF_EVERY_MAX); return buf;
    case O_SEED: return "a whole number from 0 to 18446744073709551615";
    case O_NCU_SHARE: return "a share from 0 to 1";
    case O_CHUNK:
    case O_MAX_PARALLEL: return "a whole number from 1 up";
    case O_INTERVAL:
    case O_TIMEOUT:
    case O_BUILD_TIMEOUT:
    case O_MAKE_TIMEOUT: return "seconds, above 0";
    }
    return "";
}

/* The options that take a value; -1 when the value is bad. */
static int set_value(struct class_opts *o, int opt, const char *v)
{
    size_t n = 0;
    switch (opt) {
    case O_COURSE: o->root = v; o->course_given = 1; return 0;
    case O_INTERVAL: return parse_pos_double(v, &o->interval);
    case O_BUILD: o->build_dir = v; return 0;
    case O_WORK: o->work = v; return 0;
    case O_GPUS: return parse_gpus(v, o);
    case O_JOBS: if (parse_count(v, 1, JOBS_MAX, &n)) return -1; o->jobs = (int)n; return 0;
    case O_REF_EVERY: if (parse_count(v, 1, REF_EVERY_MAX, &n)) return -1; o->ref_every = (int)n; return 0;
    case O_SEED: return parse_u64(v, &o->seed);
    case O_TIMEOUT: return parse_pos_double(v, &o->run_timeout);
    case O_NCU_SHARE: return parse_share(v, &o->ncu_share);
    case O_BUILD_TIMEOUT: return parse_pos_double(v, &o->build_timeout);
    case O_MAKE_TIMEOUT: return parse_pos_double(v, &o->make_timeout);
    case O_ONLY: return push_value(o->only, &o->n_only, MAX_ONLY, v);
    case O_CHUNK: return parse_count(v, 1, SIZE_MAX, &o->sl.chunk);
    case O_MAX_PARALLEL: return parse_count(v, 1, SIZE_MAX, &o->sl.max_parallel);
    case O_TIME: o->sl.time = v; return 0;
    case O_MEM: o->sl.mem = v; return 0;
    case O_CPUS: o->sl.cpus = v; return 0;
    case O_GRES: o->sl.gres = v; return 0;
    case O_PARTITION: o->sl.partition = v; return 0;
    case O_ACCOUNT: o->sl.account = v; return 0;
    case O_SBATCH_ARG:
        return push_value(o->sl.extra, &o->sl.n_extra, sizeof o->sl.extra / sizeof o->sl.extra[0], v);
    }
    return -1;
}

/* The options without a value. */
static void set_flag(struct class_opts *o, int opt)
{
    switch (opt) {
    case O_WAIT: o->wait = 1; break;
    case O_NO_SANITIZE: o->sanitize = 0; break;
    case O_PROFILE: o->profile = 1; break;
    case O_FORCE: o->force = 1; break;
    case O_KEEP_WORK: o->keep_work = 1; break;
    case O_NO_COURSE_BUILD: o->course_build = 0; break;
    case O_NO_SANDBOX: o->no_sandbox = 1; break;
    case O_ARRAY_TASK: o->array_task = 1; break;
    case O_SLURM: o->slurm = 1; break;
    case O_DRY_RUN: o->dry_run = 1; break;
    }
}

static void defaults(struct class_opts *o)
{
    memset(o, 0, sizeof *o);
    o->root = ".";
    o->build_dir = "build";
    o->ref_every = 20;
    o->seed = 1;
    o->sanitize = 1;
    o->ncu_share = -1;
    o->course_build = 1;
    o->interval = 10;
    o->make_timeout = 600;
    slurm_opts_init(&o->sl);
}

/* --jobs by default: the students at once for each GPU share the cores with the other GPUs'
 * students (builds, the verifier, compute-sanitizer are CPU work): a quarter of each GPU's
 * share of the cores, 1 to 4. */
static int default_jobs(size_t n_gpus)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN) / (long)(n_gpus ? n_gpus : 1);
    return cores >= 16 ? 4 : cores >= 4 ? (int)(cores / 4) : 1;
}

/* After the options: the one class directory, and what the options say together. */
static int check_args(int argc, char **argv, struct class_opts *o, const char *cmd)
{
    if (!o->jobs)
        o->jobs = default_jobs(o->n_gpus);
    if (optind < argc)
        o->dir = argv[optind];
    if (optind + 1 < argc) {
        fprintf(stderr, "grader %s: one class directory only (got %s and %s)\n", cmd, o->dir,
                argv[optind + 1]);
        return 2;
    }
    if (!o->dir) {
        fprintf(stderr, "grader %s: no class directory given (usage: grader %s DIR)\n", cmd, cmd);
        return 2;
    }
    if (!is_dir(o->dir)) {
        fprintf(stderr, "grader %s: %s is not a directory\n", cmd, o->dir);
        return 2;
    }
    if (o->slurm && o->n_gpus) {
        fprintf(stderr, "grader class: --gpus and --slurm exclude each other (Slurm assigns "
                        "the GPUs)\n");
        return 2;
    }
    return 0;
}

int class_parse_args(int argc, char **argv, struct class_opts *o, int collect)
{
    defaults(o);
    const char *cmd = collect ? "collect" : "class";
    const struct option *table = collect ? collect_options : class_options;
    int opt, idx = 0;
    opterr = 0;
    optind = 0;
    while ((opt = getopt_long(argc, argv, ":h", table, &idx)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return 1;
        }
        if (opt == '?' || opt == ':') {
            if (opt == '?')
                fprintf(stderr, "grader %s: unknown option %s (see %s)\n", cmd, argv[optind - 1],
                        collect ? "grader class --help" : "--help");
            else
                fprintf(stderr, "grader %s: %s needs a value\n", cmd, argv[optind - 1]);
            return 2;
        }
        if (optarg && set_value(o, opt, optarg) != 0) {
            char buf[96];
            const char *want = value_wanted(opt, buf, sizeof buf);
            fprintf(stderr, "grader %s: bad value for --%s: %s%s%s%s\n", cmd, table[idx].name,
                    optarg, want[0] ? " (it wants " : "", want, want[0] ? ")" : "");
            return 2;
        }
        if (!optarg)
            set_flag(o, opt);
    }
    return check_args(argc, argv, o, cmd);
}

/* Absolute directories, so children, make and Slurm jobs all see the same paths. */
int class_resolve_paths(struct class_opts *o, char **keep)
{
    keep[0] = path_absolute(o->dir);
    keep[1] = path_absolute(o->root);
    o->dir = keep[0];
    o->root = keep[1];
    if (!o->work) {
        char hex[HASH_HEX_LEN + 1];
        hash_sha256_hex(o->dir, strlen(o->dir), hex);
        hex[12] = 0;
        const char *tmp = getenv("TMPDIR");
        if (asprintf(&keep[2], "%s/grader-class-%ld/%s", tmp && tmp[0] ? tmp : "/tmp",
                     (long)getuid(), hex) < 0)
            return -1;
        o->work = keep[2];
    } else {
        keep[2] = path_absolute(o->work);
        o->work = keep[2];
    }
    return o->dir && o->root && o->work ? 0 : -1;
}

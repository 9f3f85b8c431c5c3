// The command line every harness and demo shares.
#include "lab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage_common[] =
    "options:\n"
    "  --list             list the cases (or versions) and exit\n"
    "  --case NAME        run only NAME (repeatable, or NAME,NAME,...)\n"
    "  --seed N           seed of the inputs (default 1)\n"
    "  --reps N           timed repetitions\n"
    "  --warmup N         untimed calls before timing\n"
    "  --report FILE      write a TAP 13 report\n"
    "  --dump DIR         write every output to DIR for --verify, without checking it here\n"
    "  --no-check         run and time only, without the CPU check\n"
    "  --verify DIR       check outputs dumped in DIR; runs none of the code under test:\n"
    "                     large products are compared in full on the GPU (--device N),\n"
    "                     sampled on the CPU when no GPU is usable\n"
    "  --check-seed N     where the sampled checks of large outputs look (default: fresh\n"
    "                     with --verify, printed there; 0 elsewhere)\n"
    "  --dump-reference DIR  write the CPU reference outputs as a dump\n"
    "  --rtol X, --atol X relative / absolute tolerance of the check\n"
    "  --csv DIR          write tables as CSV files into DIR\n"
    "  --quick            smallest sizes only\n"
    "  --all-sizes        every size of the source lecture's tables, where a demo runs\n"
    "                     fewer of them by default (minutes)\n"
    "  --flush-l2         flush the L2 cache before every timed call\n"
    "  --phases           say on stderr where each case's wall time went: drawing inputs,\n"
    "                     copies, the calls, keeping outputs, checking or dumping them\n"
    "  --keep-on-host     keep the timed calls' outputs in host memory (default: on the\n"
    "                     device, for the tasks that say where they are there)\n"
    "  --device N         CUDA device to use (default 0)\n"
    "  --help             this text\n"
    "exit status: 0 all passed, 1 some failed, 2 usage error, 3 CUDA error, 77 skipped\n";

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "error: %s needs an integer in [%ld, %ld], got '%s'\n", opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_u64(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') {
        fprintf(stderr, "error: %s needs a non-negative integer, got '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_double(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0)) {
        fprintf(stderr, "error: %s needs a number >= 0, got '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int add_cases(lab_options *o, char *list)
{
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->n_cases == LAB_MAX_CASE_ARGS) {
            fprintf(stderr, "error: more than %d --case names\n", LAB_MAX_CASE_ARGS);
            return -1;
        }
        o->cases[o->n_cases++] = tok;
    }
    return 0;
}

// Options that take a value; the value may follow as the next argument or after '='.
static const char *const valued[] = {"--case",   "--seed",   "--check-seed", "--reps",
                                     "--warmup", "--report", "--dump",       "--verify",
                                     "--dump-reference", "--csv", "--device", "--rtol", "--atol"};

static int is_valued(const char *name)
{
    for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
        if (!strcmp(name, valued[i]))
            return 1;
    return 0;
}

static int apply(lab_options *o, const char *name, char *val)
{
    long v;
    if (!strcmp(name, "--case"))
        return add_cases(o, val);
    if (!strcmp(name, "--seed"))
        return parse_u64(name, val, &o->seed);
    if (!strcmp(name, "--check-seed"))
        return parse_u64(name, val, &o->check_seed) ? -1 : (o->has_check_seed = 1, 0);
    if (!strcmp(name, "--reps"))
        return parse_long(name, val, 1, 100000, &v) ? -1 : (o->reps = (int)v, 0);
    if (!strcmp(name, "--warmup"))
        return parse_long(name, val, 0, 100000, &v) ? -1 : (o->warmup = (int)v, 0);
    if (!strcmp(name, "--device"))
        return parse_long(name, val, 0, 1024, &v) ? -1 : (o->device = (int)v, 0);
    if (!strcmp(name, "--rtol"))
        return parse_double(name, val, &o->rtol);
    if (!strcmp(name, "--atol"))
        return parse_double(name, val, &o->atol);
    if (!*val) {
        fprintf(stderr, "error: %s needs a non-empty value\n", name);
        return -1;
    }
    if (!strcmp(name, "--report"))
        o->report = val;
    else if (!strcmp(name, "--dump"))
        o->dump_dir = val;
    else if (!strcmp(name, "--verify"))
        o->verify_dir = val;
    else if (!strcmp(name, "--dump-reference"))
        o->reference_dir = val;
    else if (!strcmp(name, "--csv"))
        o->csv_dir = val;
    return 0;
}

int lab_cli_parse(int argc, char **argv, const char *what, const char *extra_usage, lab_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->reps = o->warmup = -1;
    o->rtol = o->atol = -1;
    const char *prog = argc > 0 ? argv[0] : "program";
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            printf("%s\nusage: %s [options]%s\n%s%s", what, prog, extra_usage ? " [VERSION...]" : "",
                   extra_usage ? extra_usage : "", usage_common);
            o->help = 1;
            return 1;
        }
        if (!strcmp(arg, "--list")) { o->list = 1; continue; }
        if (!strcmp(arg, "--flush-l2")) { o->flush_l2 = 1; continue; }
        if (!strcmp(arg, "--quick")) { o->quick = 1; continue; }
        if (!strcmp(arg, "--all-sizes")) { o->all_sizes = 1; continue; }
        if (!strcmp(arg, "--no-check")) { o->no_check = 1; continue; }
        if (!strcmp(arg, "--phases")) { o->phases = 1; continue; }
        if (!strcmp(arg, "--keep-on-host")) { o->keep_on_host = 1; continue; }
        if (arg[0] == '-' && arg[1] == '-') {
            char name[64];
            char *eq = strchr(arg, '=');
            size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), arg);
            if (!is_valued(name)) {
                fprintf(stderr, "error: unknown option '%s' (try --help)\n", arg);
                return -1;
            }
            char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val) {
                fprintf(stderr, "error: %s needs a value\n", name);
                return -1;
            }
            if (apply(o, name, val))
                return -1;
            continue;
        }
        char *end;
        long v = strtol(arg, &end, 10);
        if (o->n_positional == LAB_MAX_POSITIONAL || end == arg || *end || v < 0) {
            fprintf(stderr, "error: unexpected argument '%s' (try --help)\n", arg);
            return -1;
        }
        o->positional[o->n_positional++] = v;
    }
    if (o->quick && o->all_sizes) {
        fprintf(stderr, "error: --quick and --all-sizes exclude each other\n");
        return -1;
    }
    // The options that are process state: every sampled check of the program reads the
    // salt, and a verifier's checks of large outputs its device.
    if (o->has_check_seed)
        lab_check_salt_set(o->check_seed);
    if (o->verify_dir)
        lab_full_check_request(o->device);
    return 0;
}

int lab_cli_case_selected(const lab_options *o, const char *name)
{
    if (o->n_cases == 0)
        return 1;
    for (size_t i = 0; i < o->n_cases; i++)
        if (!strcmp(o->cases[i], name))
            return 1;
    return 0;
}

// The command line every harness and demo shares.
#include "lab.h"

#include <errno.h>
#include <getopt.h>
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

enum { OPT_FLAG = 256, OPT_VALUE = 512 };

// Flags set a field of the options; options with a value (next argument or after '=') go
// through apply() by name. getopt_long reads both, and the version numbers around them.
static const struct option long_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {"list", no_argument, NULL, OPT_FLAG + 0},
    {"flush-l2", no_argument, NULL, OPT_FLAG + 1},
    {"quick", no_argument, NULL, OPT_FLAG + 2},
    {"no-check", no_argument, NULL, OPT_FLAG + 3},
    {"phases", no_argument, NULL, OPT_FLAG + 4},
    {"keep-on-host", no_argument, NULL, OPT_FLAG + 5},
    {"all-sizes", no_argument, NULL, OPT_FLAG + 6},
    {"case", required_argument, NULL, OPT_VALUE},
    {"seed", required_argument, NULL, OPT_VALUE},
    {"check-seed", required_argument, NULL, OPT_VALUE},
    {"reps", required_argument, NULL, OPT_VALUE},
    {"warmup", required_argument, NULL, OPT_VALUE},
    {"report", required_argument, NULL, OPT_VALUE},
    {"dump", required_argument, NULL, OPT_VALUE},
    {"verify", required_argument, NULL, OPT_VALUE},
    {"dump-reference", required_argument, NULL, OPT_VALUE},
    {"csv", required_argument, NULL, OPT_VALUE},
    {"device", required_argument, NULL, OPT_VALUE},
    {"rtol", required_argument, NULL, OPT_VALUE},
    {"atol", required_argument, NULL, OPT_VALUE},
    {NULL, 0, NULL, 0},
};

static int *flag_field(lab_options *o, int which)
{
    int *const fields[] = {&o->list, &o->flush_l2, &o->quick, &o->no_check, &o->phases,
                           &o->keep_on_host, &o->all_sizes};
    return fields[which];
}

static int apply(lab_options *o, const char *opt, char *val)
{
    long v;
    char name[64];
    snprintf(name, sizeof name, "--%s", opt);
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

// A version number: a non-negative integer, the whole argument.
static int add_positional(lab_options *o, const char *arg)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (o->n_positional == LAB_MAX_POSITIONAL || end == arg || *end || v < 0) {
        fprintf(stderr, "error: unexpected argument '%s' (try --help)\n", arg);
        return -1;
    }
    o->positional[o->n_positional++] = v;
    return 0;
}

int lab_cli_parse(int argc, char **argv, const char *what, const char *extra_usage, lab_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->reps = o->warmup = -1;
    o->rtol = o->atol = -1;
    const char *prog = argc > 0 ? argv[0] : "program";
    optind = 0; // getopt_long from the start, however often the program parses
    opterr = 0; // its own messages, one line each
    int c, at;
    // "-": arguments that are no option come back in order, as the version numbers they are
    while ((c = getopt_long(argc, argv, "-:h", long_opts, &at)) != -1) {
        if (c == 'h') {
            printf("%s\nusage: %s [options]%s\n%s%s", what, prog, extra_usage ? " [VERSION...]" : "",
                   extra_usage ? extra_usage : "", usage_common);
            o->help = 1;
            return 1;
        }
        if (c >= OPT_FLAG && c < OPT_VALUE)
            *flag_field(o, c - OPT_FLAG) = 1;
        else if (c == OPT_VALUE && apply(o, long_opts[at].name, optarg))
            return -1;
        else if (c == 1 && add_positional(o, optarg))
            return -1;
        else if (c == ':') {
            fprintf(stderr, "error: %s needs a value\n", argv[optind - 1]);
            return -1;
        } else if (c == '?') {
            fprintf(stderr, "error: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return -1;
        }
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

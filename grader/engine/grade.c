/* grade.c — one task through the protocol of grade.h. */
#include "grade.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model_impl.h"
#include "objcheck.h"
#include "parse.h"
#include "runner.h"
#include "hash.h"
#include "tap.h"

#define LOG_READ_MAX ((size_t)4 << 20)
#define MAX_DIAGS 50
#define MAX_FINDINGS 20
#define FLOOD_BYTES ((size_t)64 << 20)
#define DUMP_FILE_BYTES (8ull << 30)
#define STUDENT_MAX_PROCS 32

static const char *const step_names[GRADE_STEP_COUNT] = {
    "building", "checking symbols", "listing cases", "running", "verifying",
    "timing the reference", "sanitizing", "done",
};

const char *grade_step_name(enum grade_step s)
{
    return (unsigned)s < GRADE_STEP_COUNT ? step_names[s] : "?";
}

void grade_opts_init(struct grade_opts *o)
{
    memset(o, 0, sizeof *o);
    o->build_dir = "build";
    o->build_timeout_s = 300;
    o->run_timeout_s = 60;
    o->verify_timeout_s = 120;
    o->sanitize_timeout_s = 180;
    o->gpu = -1;
    o->sanitize = 1;
    o->build = 1;
    o->output_cap_bytes = (size_t)1 << 20;
    o->make = "make";
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    o->mem_limit_bytes = pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page / 2 : 0;
}

/* ======================================================================= one grading */
/* One compute-sanitizer tool's run, for a thread of its own. */
struct san_job {
    char *log;
    char *argv[17];
    struct run_spec spec;
    struct run_result res;
    pthread_t thread;
    int started;
};

struct job {
    const struct task *t;
    const struct grade_opts *o;
    struct task_result *r;
    const char *root;
    char *build_abs, *exbuild_abs, *exercises_abs, *work;
    char *ex_bin, *sol_bin, *ex_obj, *ex_src;
    char *ex_target, *sol_target; /* the same binaries as make names them */
    char sol_hash[HASH_HEX_LEN + 1]; /* of sol_bin, taken right after the grader's own build */
    char *seed_arg;
    char *env_gpu;
    const char *env[2];
    struct list_case *cases;
    size_t n_cases;
    unsigned long long mem_limit;
    char *dump, *run_tap, *verify_tap; /* under work */
    struct san_job *san;               /* one per tool, while they run */
    size_t n_san;
    char *san_tool;
    const char *san_small;
    volatile sig_atomic_t san_cancel;
};

static char *absolute(const char *root, const char *p)
{
    return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", root, p);
}

static char *work_file(const struct job *j, const char *name)
{
    return xasprintf("%s/%s", j->work, name);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static int mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0755);
            *s = '/';
        }
    int rc = mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1;
    free(p);
    return rc;
}

static int file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static uint64_t fresh_seed(void)
{
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &s, sizeof s) != (ssize_t)sizeof s)
        s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (fd >= 0)
        close(fd);
    /* Short enough to retype: "--seed 123456789" reproduces a grading. */
    return s % 1000000000u;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(const struct job *j, enum grade_step s, const char *detail)
{
    if (j->o->progress)
        j->o->progress(j->o->progress_user, j->t, s, detail);
}

static int cancelled(const struct job *j)
{
    return j->o->cancel && *j->o->cancel;
}

/* Student code, the verifier and the tools: all run through the same bounds. */
static void spec_init(const struct job *j, struct run_spec *s, char *const *argv, double wall)
{
    memset(s, 0, sizeof *s);
    s->argv = argv;
    s->cwd = j->work;
    s->env = j->env;
    s->wall_s = wall;
    s->cpu_s = 4 * wall + 10;
    s->output_cap = j->o->output_cap_bytes;
    s->flood_bytes = FLOOD_BYTES;
    s->file_bytes = DUMP_FILE_BYTES;
    s->open_files = 256;
    s->nproc_margin = 256;
    s->max_procs = STUDENT_MAX_PROCS;
    s->data_bytes = j->mem_limit;
    s->cancel = j->o->cancel;
}

/* First line of a file that satisfies pred (or the first non-empty line), malloc'd; "" if none. */
static char *first_line(const char *path, const char *must_contain)
{
    char *text = read_text_file(path, 1 << 16);
    char *found = NULL, *fallback = NULL;
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        if (!fallback && line[0])
            fallback = line;
        if (!must_contain || strstr(line, must_contain)) {
            found = line;
            break;
        }
    }
    char *out = xstrdup(found ? found : fallback ? fallback : "");
    if (strlen(out) > 300)
        out[300] = 0;
    free(text);
    return out;
}

/* ======================================================================= steps */
static int step_build(struct job *j)
{
    struct task_result *r = j->r;
    char *log = work_file(j, "build.log");
    set_str(&r->build_log_path, log);
    const char *build_dir = j->o->build_dir ? j->o->build_dir : "build";
    char *build_var = xasprintf("BUILD=%s", build_dir);
    char *exer_var = xasprintf("EXERCISES=%s", j->exercises_abs);
    char *exb_var = xasprintf("EXBUILD=%s", j->exbuild_abs);
    char *argv[12];
    int n = 0;
    argv[n++] = (char *)j->o->make;
    argv[n++] = "-C";
    argv[n++] = (char *)j->root;
    argv[n++] = "--no-print-directory";
    argv[n++] = "-j4";
    if (strcmp(build_dir, "build") != 0)
        argv[n++] = build_var;
    /* Only a copy of exercises/ (class grading) needs the two variables. */
    if (j->o->exercises_dir)
        argv[n++] = exer_var;
    if (j->o->exbuild_dir)
        argv[n++] = exb_var;
    argv[n++] = j->ex_target;
    argv[n++] = j->sol_target;
    argv[n] = NULL;
    struct run_spec s;
    spec_init(j, &s, argv, j->o->build_timeout_s);
    s.cwd = j->root;
    s.stdout_path = s.stderr_path = log;
    s.max_procs = 0;
    s.data_bytes = 0;
    s.cpu_s = 0;
    struct run_result res;
    run_sandboxed(&s, &res);
    char *text = read_text_file(log, LOG_READ_MAX);
    if (text)
        parse_compiler_diags(text, j->root, r, MAX_DIAGS);
    free(text);
    int ok = res.end == RUN_EXITED && res.exit_status == 0 && file_exists(j->ex_bin) &&
             file_exists(j->sol_bin);
    if (!ok) {
        r->outcome = res.end == RUN_CANCELLED ? OUTCOME_NOT_RUN : OUTCOME_BUILD_FAILED;
        const struct compiler_diag *d = NULL;
        for (size_t i = 0; i < r->n_diags && !d; i++)
            if (strstr(r->diags[i].severity, "error"))
                d = &r->diags[i];
        char how[256];
        run_describe(&s, &res, how, sizeof how);
        if (res.end == RUN_CANCELLED)
            result_set_reason(r, "cancelled");
        else if (d && d->file[0])
            result_set_reason(r, "%s:%d: %s: %s", d->file, d->line, d->severity, d->text);
        else if (d)
            result_set_reason(r, "%s: %s", d->severity, d->text);
        else
            result_set_reason(r, "make failed (%s): see the build log", how);
    }
    free(build_var);
    free(exer_var);
    free(exb_var);
    free(log);
    return ok;
}

/* The grader's own trouble: never a pass, never the student's fault. */
static int grader_error(struct job *j, const char *what)
{
    j->r->outcome = OUTCOME_NOT_RUN;
    result_set_reason(j->r, "grader error: %s", what);
    return 0;
}

/* What the object may define and call (objcheck.h), before any of it runs. */
static int step_symbols(struct job *j)
{
    const char *lid = lesson_id(task_lesson(j->t));
    char *header = xasprintf("%s/%s.h", lesson_dir(task_lesson(j->t)), task_name(j->t));
    char *shown = xasprintf("exercises/%s/%s.cu", lid, task_name(j->t));
    struct strlist contract = {0};
    struct objcheck_rules rules = {shown, j->ex_src, &contract, &j->t->allow, &j->t->forbid};
    struct objcheck_verdict v = {0};
    char err[512] = "";
    int ok = 0;
    if (objcheck_contract(header, &contract) < 0) {
        snprintf(err, sizeof err, "cannot read the contract %s: %s", header, strerror(errno));
        grader_error(j, err);
    } else if (objcheck_object(j->ex_obj, j->work, &rules, &v, err, sizeof err) < 0) {
        j->r->outcome = OUTCOME_BUILD_FAILED;
        result_set_reason(j->r, "%s", err);
    } else {
        for (size_t i = 0; i < v.forbidden.n; i++)
            strlist_push(&j->r->forbidden, v.forbidden.v[i]);
        ok = !v.rejected;
        if (!ok) {
            j->r->outcome = OUTCOME_REJECTED;
            result_set_reason(j->r, "%s", v.reason);
        }
    }
    objcheck_verdict_free(&v);
    strlist_free(&contract);
    free(header);
    free(shown);
    return ok;
}

static int step_list(struct job *j)
{
    char *out = work_file(j, "list.out");
    char *argv[] = {j->sol_bin, "--list", NULL};
    struct run_spec s;
    spec_init(j, &s, argv, j->o->verify_timeout_s);
    s.stdout_path = out;
    struct run_result res;
    run_sandboxed(&s, &res);
    char *text = read_text_file(out, LOG_READ_MAX);
    free(out);
    if (text)
        j->n_cases = parse_case_list(text, &j->cases);
    free(text);
    if (res.end != RUN_EXITED || res.exit_status != 0 || j->n_cases == 0) {
        j->r->outcome = OUTCOME_BUILD_FAILED;
        result_set_reason(j->r, "the reference solution's --list gave no cases");
        return 0;
    }
    for (size_t i = 0; i < j->n_cases; i++) {
        struct case_result *c = result_add_case(j->r, j->cases[i].name);
        set_str(&c->dims, j->cases[i].dims);
        c->flags = j->cases[i].flags;
    }
    return 1;
}

/* 1 when the reference binary is the one the grader built; else the grader's own error. */
static int sol_intact(struct job *j)
{
    char now[HASH_HEX_LEN + 1];
    if (hash_file_hex(j->sol_bin, now) == 0 && strcmp(now, j->sol_hash) == 0)
        return 1;
    char *what = xasprintf("%s is not the binary the grader built (its hash changed during the "
                           "grading): no verdict or time of this grading is trusted", j->sol_bin);
    grader_error(j, what);
    free(what);
    return 0;
}

static const struct case_result *flagged_case(const struct task_result *r, const char *named,
                                              unsigned flag);

/* The exercise exited 77. A skip is believed only when the reference, run on a small case the
 * same way, finds no usable GPU either. Returns 0: nothing follows a skip. */
static int skip_checked(struct job *j)
{
    struct task_result *r = j->r;
    if (!sol_intact(j))
        return 0;
    const struct case_result *small = flagged_case(r, task_sanitize_case(j->t), CASE_FLAG_SMALL);
    char *out = work_file(j, "probe.out");
    char *argv[] = {j->sol_bin, "--case", small ? small->name : r->cases[0].name, "--no-check",
                    "--reps", "1", "--warmup", "0", "--seed", j->seed_arg, NULL};
    struct run_spec s;
    spec_init(j, &s, argv, j->o->verify_timeout_s);
    s.stdout_path = s.stderr_path = out;
    struct run_result res;
    run_sandboxed(&s, &res);
    free(out);
    int probe = res.end == RUN_EXITED ? res.exit_status : -1;
    if (probe == 77) {
        char *line = first_line(r->stdout_path, "SKIP");
        if (!strstr(line, "SKIP")) {
            free(line);
            line = first_line(r->stderr_path, "SKIP");
        }
        r->outcome = OUTCOME_SKIPPED;
        result_set_reason(r, "%s", line[0] ? line : "skipped: no usable GPU");
        free(line);
    } else if (probe == 0 || probe == 1) {
        r->outcome = OUTCOME_CRASHED;
        result_set_reason(r, "exited 77 (skip) but this machine has a usable GPU");
    } else {
        char how[256], *what;
        run_describe(&s, &res, how, sizeof how);
        what = xasprintf("the skip could not be checked: the reference's probe %s", how);
        grader_error(j, what);
        free(what);
    }
    return 0;
}

/* The exercise's run. Returns 1 when verification should follow. */
static int step_run(struct job *j, const char *dump, const char *report)
{
    struct task_result *r = j->r;
    char *argv[] = {j->ex_bin, "--seed", j->seed_arg, "--dump", (char *)dump,
                    "--report", (char *)report, NULL};
    struct run_spec s;
    spec_init(j, &s, argv, j->o->run_timeout_s);
    s.stdout_path = r->stdout_path;
    s.stderr_path = r->stderr_path;
    struct run_result res;
    run_sandboxed(&s, &res);
    char how[256];
    run_describe(&s, &res, how, sizeof how);
    if (res.end == RUN_EXITED) {
        r->exit_status = res.exit_status;
    } else if (res.end == RUN_SIGNALED) {
        r->signal = res.term_signal;
    }

    /* The exercise's own report: its times only (never its verdict). */
    struct tap_report own;
    tap_parse_file(report, &own);
    for (size_t i = 0; i < r->n_cases; i++) {
        const struct tap_case *tc = tap_find(&own, r->cases[i].name);
        if (!tc)
            continue;
        r->cases[i].time_ms = tc->time_ms;
        r->cases[i].throughput = tc->throughput;
        set_str(&r->cases[i].unit, tc->unit);
    }
    tap_report_free(&own);

    switch (res.end) {
    case RUN_TIMED_OUT:
        r->outcome = OUTCOME_TIMED_OUT;
        result_set_reason(r, "%s", how);
        return 0;
    case RUN_CANCELLED:
        r->outcome = OUTCOME_NOT_RUN;
        result_set_reason(r, "cancelled");
        return 0;
    case RUN_SIGNALED:
    case RUN_FLOODED:
    case RUN_FORKED:
    case RUN_SPAWN_FAILED:
        r->outcome = OUTCOME_CRASHED;
        result_set_reason(r, "%s", how);
        return 1;
    case RUN_EXITED:
        break;
    }
    if (res.exit_status == 0 || res.exit_status == 1)
        return 1;
    if (res.exit_status == 77)
        return skip_checked(j);
    if (res.exit_status == 3) {
        char *line = first_line(r->stderr_path, ": ");
        r->outcome = OUTCOME_CUDA_ERROR;
        result_set_reason(r, "%s", line[0] ? line : "CUDA error (exit status 3)");
        free(line);
        return 1;
    }
    r->outcome = OUTCOME_CRASHED;
    result_set_reason(r, "%s%s", how, res.exit_status == 2 ? " (usage error)" : "");
    return 1;
}

static enum case_status status_of(const char *s)
{
    if (strcmp(s, "pass") == 0)
        return CASE_PASS;
    if (strcmp(s, "fail") == 0)
        return CASE_FAIL;
    if (strcmp(s, "skip") == 0)
        return CASE_SKIP;
    return CASE_ERROR;
}

static void split_mismatches(struct case_result *c, const char *text)
{
    char *copy = xstrdup(text), *save = NULL;
    for (char *m = strtok_r(copy, ";", &save); m && c->n_mismatches < CASE_MAX_SHOWN;
         m = strtok_r(NULL, ";", &save)) {
        while (*m == ' ')
            m++;
        if (*m)
            c->mismatches[c->n_mismatches++] = xstrdup(m);
    }
    free(copy);
    if (c->n_mismatches == 0 && c->first_mismatch[0])
        c->mismatches[c->n_mismatches++] = xstrdup(c->first_mismatch);
}

/* The verdict, from a process that runs no student code. Returns 1 when every case passed. */
static int step_verify(struct job *j, const char *dump, const char *report)
{
    struct task_result *r = j->r;
    char rtol[32], atol[32];
    char *argv[12];
    int n = 0;
    argv[n++] = j->sol_bin;
    argv[n++] = "--verify";
    argv[n++] = (char *)dump;
    argv[n++] = "--seed";
    argv[n++] = j->seed_arg;
    argv[n++] = "--report";
    argv[n++] = (char *)report;
    if (task_rtol(j->t) >= 0) {
        snprintf(rtol, sizeof rtol, "%.17g", task_rtol(j->t));
        argv[n++] = "--rtol";
        argv[n++] = rtol;
    }
    if (task_atol(j->t) >= 0) {
        snprintf(atol, sizeof atol, "%.17g", task_atol(j->t));
        argv[n++] = "--atol";
        argv[n++] = atol;
    }
    argv[n] = NULL;
    char *out = work_file(j, "verify.out");
    struct run_spec s;
    spec_init(j, &s, argv, j->o->verify_timeout_s);
    s.stdout_path = s.stderr_path = out;
    struct run_result res;
    run_sandboxed(&s, &res);
    free(out);

    struct tap_report v;
    tap_parse_file(report, &v);
    size_t passed = 0, skipped = 0;
    const struct case_result *first_bad = NULL;
    for (size_t i = 0; i < r->n_cases; i++) {
        struct case_result *c = &r->cases[i];
        const struct tap_case *tc = tap_find(&v, c->name);
        if (!tc) {
            c->status = CASE_ERROR;
            set_str(&c->note, "not verified (the verifier's report has no such case)");
        } else {
            c->status = status_of(tc->status);
            c->checked = tc->checked;
            c->bad = tc->bad;
            c->max_abs_err = tc->max_abs_err;
            c->max_rel_err = tc->max_rel_err;
            set_str(&c->first_mismatch, tc->first_mismatch);
            set_str(&c->note, tc->note);
            split_mismatches(c, tc->mismatches);
        }
        passed += c->status == CASE_PASS;
        skipped += c->status == CASE_SKIP;
        if (!first_bad && c->status != CASE_PASS && c->status != CASE_SKIP)
            first_bad = c;
    }
    tap_report_free(&v);
    int ok = res.end == RUN_EXITED && res.exit_status == 0 && !first_bad && passed > 0;
    if (r->outcome != OUTCOME_NOT_RUN || ok)
        return ok; /* a crash or CUDA error already decided the outcome */
    r->outcome = OUTCOME_WRONG;
    if (first_bad && first_bad->bad > 0 && first_bad->first_mismatch[0])
        result_set_reason(r, "case %s: %lld of %lld elements wrong, first %s", first_bad->name,
                          first_bad->bad, first_bad->checked, first_bad->first_mismatch);
    else if (first_bad && first_bad->note[0])
        result_set_reason(r, "case %s: %s", first_bad->name, first_bad->note);
    else if (first_bad)
        result_set_reason(r, "case %s: %s", first_bad->name, case_status_name(first_bad->status));
    else if (res.end != RUN_EXITED) {
        char how[256];
        run_describe(&s, &res, how, sizeof how);
        result_set_reason(r, "the verifier could not check the output: %s", how);
    } else
        result_set_reason(r, "the verifier rejected the output (exit status %d)", res.exit_status);
    return 0;
}

static const struct case_result *flagged_case(const struct task_result *r, const char *named,
                                              unsigned flag)
{
    for (size_t i = 0; i < r->n_cases; i++)
        if (named[0] ? strcmp(r->cases[i].name, named) == 0 : (r->cases[i].flags & flag) != 0)
            return &r->cases[i];
    return NULL;
}

/* Times the reference on the speed case. Returns 0 when the task is too slow. */
static int step_speed(struct job *j)
{
    struct task_result *r = j->r;
    const struct case_result *sc = flagged_case(r, task_speed_case(j->t), CASE_FLAG_SPEED);
    r->speed_threshold = task_speed_threshold(j->t);
    if (!sc)
        return 1;
    set_str(&r->speed_case, sc->name);
    char *report = work_file(j, "reference.tap");
    char *out = work_file(j, "reference.out");
    /* --no-check: the reference is trusted, so its CPU check would only cost time */
    char *argv[] = {j->sol_bin, "--seed",  j->seed_arg, "--case", sc->name,
                    "--no-check", "--report", report,      NULL};
    struct run_spec s;
    spec_init(j, &s, argv, j->o->verify_timeout_s);
    s.stdout_path = s.stderr_path = out;
    struct run_result res;
    run_sandboxed(&s, &res);
    struct tap_report ref;
    tap_parse_file(report, &ref);
    const struct tap_case *tc = tap_find(&ref, sc->name);
    double ref_ms = tc ? tc->time_ms : -1;
    tap_report_free(&ref);
    free(report);
    free(out);

    struct case_result *c = result_find_case(r, sc->name);
    c->ref_time_ms = ref_ms;
    r->time_ms = c->time_ms;
    r->ref_time_ms = ref_ms;
    if (c->time_ms <= 0) {
        if (r->speed_threshold <= 0)
            return 1;
        r->outcome = OUTCOME_TOO_SLOW;
        result_set_reason(r, "case %s: the exercise reported no time", sc->name);
        return 0;
    }
    if (ref_ms <= 0) {
        if (r->speed_threshold <= 0)
            return 1;
        /* The grader's own side failed: neither held against the student nor waived. */
        char *what = xasprintf("the reference run gave no time for %s: speed not judged", sc->name);
        grader_error(j, what);
        free(what);
        return 0;
    }
    r->speed_measured = 1;
    r->speed_ratio = ref_ms / c->time_ms;
    if (r->speed_ratio >= r->speed_threshold)
        return 1;
    r->outcome = OUTCOME_TOO_SLOW;
    result_set_reason(r, "case %s: %.3g ms against the reference's %.3g ms (ratio %.2f, needs %.2f)",
                      sc->name, c->time_ms, ref_ms, r->speed_ratio, r->speed_threshold);
    return 0;
}

static char *find_sanitizer(const struct grade_opts *o)
{
    if (o->sanitizer)
        return access(o->sanitizer, X_OK) == 0 ? xstrdup(o->sanitizer) : NULL;
    const char *path = getenv("PATH");
    char *copy = xstrdup(path ? path : ""), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *p = xasprintf("%s/compute-sanitizer", d);
        if (access(p, X_OK) == 0) {
            free(copy);
            return p;
        }
        free(p);
    }
    free(copy);
    const char *cuda = getenv("CUDA_HOME");
    char *p = xasprintf("%s/bin/compute-sanitizer", cuda && *cuda ? cuda : "/usr/local/cuda");
    if (access(p, X_OK) == 0)
        return p;
    free(p);
    return NULL;
}

static void *san_thread(void *arg)
{
    struct san_job *s = arg;
    run_sandboxed(&s->spec, &s->res);
    return NULL;
}

/* Reads one tool's log into its sanitizer_run and the result's findings. */
static void san_collect(struct job *j, struct sanitizer_run *sr,
                                                  struct san_job *s)
{
    struct task_result *r = j->r;
    const char *tool = sr->tool;
    char *text = read_text_file(s->log, LOG_READ_MAX);
    size_t room = r->n_findings < MAX_FINDINGS ? MAX_FINDINGS - r->n_findings : 0;
    sr->n_findings = text ? parse_sanitizer_output(text, tool, j->root, r, room) : 0;
    char tool_err[512] = "";
    int tool_failed = text && sanitizer_tool_error(text, tool_err, sizeof tool_err);
    free(text);
    if (s->res.end == RUN_TIMED_OUT) {
        sr->status = SANITIZER_TIMED_OUT;
        set_str(&sr->note, "timed out: not counted against the task");
    } else if (sr->n_findings > 0) {
        sr->status = SANITIZER_FINDINGS;
    } else if (s->res.end == RUN_EXITED && s->res.exit_status == 0) {
        sr->status = SANITIZER_CLEAN;
    } else if (s->res.end == RUN_EXITED && s->res.exit_status == 77) {
        sr->status = SANITIZER_UNAVAILABLE;
        set_str(&sr->note, "the program found no usable GPU under compute-sanitizer");
    } else if (tool_failed) {
        sr->status = SANITIZER_UNAVAILABLE;
        set_str(&sr->note, tool_err);
    } else {
        char how[256];
        run_describe(&s->spec, &s->res, how, sizeof how);
        sr->status = s->res.end == RUN_EXITED && s->res.exit_status == 99 ? SANITIZER_FINDINGS
                                                                           : SANITIZER_FAILED;
        char *note = xasprintf("under %s: %s", tool, how);
        set_str(&sr->note, note);
        free(note);
    }
}

/* Every tool of the task at once, started right after the exercise's run so that they overlap
 * the verification: each is its own process on a small case, so the step takes as long as the
 * slowest tool, and mostly while the verifier works anyway. Nothing is recorded until
 * san_finish; when the answer is wrong they are killed and forgotten. */
static void san_start(struct job *j)
{
    const struct case_result *small =
        flagged_case(j->r, task_sanitize_case(j->t), CASE_FLAG_SMALL);
    j->san_tool = find_sanitizer(j->o);
    j->n_san = task_sanitizer_count(j->t);
    j->san = xcalloc(j->n_san, sizeof *j->san);
    if (!j->san_tool || !small)
        return;
    j->san_small = small->name;
    for (size_t k = 0; k < j->n_san; k++) {
        const char *tool = task_sanitizer(j->t, k);
        struct san_job *s = &j->san[k];
        char *name = xasprintf("sanitizer-%s.log", tool);
        s->log = work_file(j, name);
        free(name);
        char *const argv[] = {j->san_tool, "--tool", (char *)tool, "--error-exitcode", "99",
                              "--print-limit", "50", j->ex_bin, "--case", (char *)j->san_small,
                              "--reps", "1", "--warmup", "0", "--seed", j->seed_arg, NULL};
        memcpy(s->argv, argv, sizeof argv);
        spec_init(j, &s->spec, s->argv, j->o->sanitize_timeout_s);
        s->spec.stdout_path = s->spec.stderr_path = s->log;
        s->spec.data_bytes = 0; /* the tool's own memory is not the student's */
        s->spec.cancel = &j->san_cancel;
        s->started = pthread_create(&s->thread, NULL, san_thread, s) == 0;
        if (!s->started)
            san_thread(s);
    }
}

/* Waits for the tools; when keep, records their runs and findings. Returns 0 when some tool
 * found an error. */
static int san_finish(struct job *j, int keep)
{
    struct task_result *r = j->r;
    if (!keep || (j->o->cancel && *j->o->cancel))
        j->san_cancel = 1;
    size_t first_at = SIZE_MAX; /* an index: adding findings moves them */
    for (size_t k = 0; k < j->n_san; k++) {
        struct san_job *s = &j->san[k];
        if (keep)
            progress(j, GRADE_STEP_SANITIZE, task_sanitizer(j->t, k));
        if (s->started)
            pthread_join(s->thread, NULL);
        if (keep) {
            struct sanitizer_run *sr = result_add_sanitizer_run(r, task_sanitizer(j->t, k));
            if (!s->log) {
                sr->status = SANITIZER_UNAVAILABLE;
                set_str(&sr->note, !j->san_tool ? "compute-sanitizer not found (PATH, "
                                                  "CUDA_HOME/bin, /usr/local/cuda/bin): not run"
                                                : "no small case to run it on");
            } else {
                set_str(&sr->log_path, s->log);
                size_t before = r->n_findings;
                san_collect(j, sr, s);
                if (first_at == SIZE_MAX && r->n_findings > before)
                    first_at = before;
            }
        }
        free(s->log);
    }
    free(j->san);
    free(j->san_tool);
    j->san = NULL;
    j->san_tool = NULL;
    if (!keep)
        return 1;
    int clean = 1;
    for (size_t k = 0; k < r->n_sanitizer_runs; k++)
        clean &= r->sanitizer_runs[k].status != SANITIZER_FINDINGS;
    if (clean)
        return 1;
    const struct sanitizer_finding *first = first_at != SIZE_MAX ? &r->findings[first_at] : NULL;
    r->outcome = OUTCOME_SANITIZER;
    if (first && first->file[0])
        result_set_reason(r, "%s: %s in %s at %s:%d", first->tool, first->kind,
                          first->kernel[0] ? first->kernel : "a kernel", first->file, first->line);
    else if (first)
        result_set_reason(r, "%s: %s", first->tool, first->kind);
    else
        result_set_reason(r, "compute-sanitizer reported an error: see its log");
    return 0;
}

/* ======================================================================= driver */
static void job_init(struct job *j, const struct task *t, const struct grade_opts *o)
{
    memset(j, 0, sizeof *j);
    j->t = t;
    j->o = o;
    j->r = result_new();
    j->root = o->root ? o->root : course_root(task_lesson(t)->course);
    const char *lid = lesson_id(task_lesson(t));
    j->build_abs = absolute(j->root, o->build_dir ? o->build_dir : "build");
    j->exbuild_abs = o->exbuild_dir ? absolute(j->root, o->exbuild_dir) : xstrdup(j->build_abs);
    j->exercises_abs = o->exercises_dir ? absolute(j->root, o->exercises_dir)
                                        : xasprintf("%s/exercises", j->root);
    j->work = o->work_dir ? xasprintf("%s/%s/%s", o->work_dir, lid, task_name(t))
                          : xasprintf("%s/grader/%s/%s", j->exbuild_abs, lid, task_name(t));
    j->ex_bin = xasprintf("%s/exercises/%s/%s", j->exbuild_abs, lid, task_name(t));
    j->sol_bin = xasprintf("%s/solutions/%s/%s", j->build_abs, lid, task_name(t));
    const char *bd = o->build_dir ? o->build_dir : "build";
    j->ex_target = o->exbuild_dir ? xasprintf("%s/exercises/%s/%s", j->exbuild_abs, lid, task_name(t))
                                  : xasprintf("%s/exercises/%s/%s", bd, lid, task_name(t));
    j->sol_target = xasprintf("%s/solutions/%s/%s", bd, lid, task_name(t));
    j->ex_obj = xasprintf("%s/obj/exercises/%s/%s.o", j->exbuild_abs, lid, task_name(t));
    j->ex_src = xasprintf("%s/%s/%s.cu", j->exercises_abs, lid, task_name(t));
    j->r->seed = o->seed_set ? o->seed : fresh_seed();
    j->seed_arg = xasprintf("%llu", (unsigned long long)j->r->seed);
    if (o->gpu >= 0) {
        j->env_gpu = xasprintf("CUDA_VISIBLE_DEVICES=%d", o->gpu);
        j->env[0] = j->env_gpu;
    }
    j->mem_limit = o->mem_limit_bytes;
    j->r->max_score = task_weight(t);
    j->r->speed_threshold = task_speed_threshold(t);
    j->r->graded_at = (int64_t)time(NULL);
}

static void job_free(struct job *j)
{
    free(j->build_abs);
    free(j->exbuild_abs);
    free(j->exercises_abs);
    free(j->work);
    free(j->ex_bin);
    free(j->sol_bin);
    free(j->ex_obj);
    free(j->ex_target);
    free(j->sol_target);
    free(j->ex_src);
    free(j->seed_arg);
    free(j->env_gpu);
    list_cases_free(j->cases, j->n_cases);
}

/* Runs one step, adding its wall time to the result. */
static int timed(struct job *j, enum grade_step step, int (*fn)(struct job *))
{
    double t0 = now_s();
    int ok = fn(j);
    j->r->step_s[step] += now_s() - t0;
    return ok;
}

static int do_build(struct job *j) { return step_build(j); }
static int do_symbols(struct job *j) { return step_symbols(j); }
static int do_list(struct job *j) { return step_list(j); }
static int do_run(struct job *j) { return step_run(j, j->dump, j->run_tap); }
/* The reference is checked before its verdict or time is asked for, and again after: the
 * sanitizers run student code while the verifier works. */
static int do_verify(struct job *j)
{
    if (!sol_intact(j))
        return 0;
    int ok = step_verify(j, j->dump, j->verify_tap) && j->r->outcome == OUTCOME_NOT_RUN;
    return sol_intact(j) && ok;
}
static int do_speed(struct job *j) { return sol_intact(j) && step_speed(j) && sol_intact(j); }

static void run_steps(struct job *j)
{
    struct task_result *r = j->r;
    nftw(j->work, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    char *dump = work_file(j, "dump");
    if (mkdir_p(dump) != 0) {
        r->outcome = OUTCOME_BUILD_FAILED;
        result_set_reason(r, "cannot create %s: %s", dump, strerror(errno));
        free(dump);
        return;
    }
    char *stdout_path = work_file(j, "exercise.stdout");
    char *stderr_path = work_file(j, "exercise.stderr");
    set_str(&r->stdout_path, stdout_path);
    set_str(&r->stderr_path, stderr_path);
    free(stdout_path);
    free(stderr_path);
    j->dump = dump;
    j->run_tap = work_file(j, "exercise.tap");
    j->verify_tap = work_file(j, "verify.tap");

    if (j->o->build) {
        progress(j, GRADE_STEP_BUILD, NULL);
        if (!timed(j, GRADE_STEP_BUILD, do_build))
            goto done;
    } else if (!file_exists(j->ex_bin) || !file_exists(j->sol_bin)) {
        r->outcome = OUTCOME_BUILD_FAILED;
        result_set_reason(r, "not built: %s", file_exists(j->ex_bin) ? j->sol_bin : j->ex_bin);
        goto done;
    }
    if (hash_file_hex(j->sol_bin, j->sol_hash) < 0) {
        grader_error(j, "cannot read the reference binary to take its hash");
        goto done;
    }
    progress(j, GRADE_STEP_SYMBOLS, NULL);
    if (cancelled(j) || !timed(j, GRADE_STEP_SYMBOLS, do_symbols))
        goto done;
    progress(j, GRADE_STEP_LIST, NULL);
    if (cancelled(j) || !timed(j, GRADE_STEP_LIST, do_list))
        goto done;
    progress(j, GRADE_STEP_RUN, NULL);
    if (cancelled(j) || !timed(j, GRADE_STEP_RUN, do_run))
        goto done;
    if (j->o->sanitize && !cancelled(j))
        san_start(j);
    progress(j, GRADE_STEP_VERIFY, NULL);
    int correct = !cancelled(j) && timed(j, GRADE_STEP_VERIFY, do_verify);
    if (j->san) {
        /* what is left of the sanitizers' time after the verification they overlapped */
        double t0 = now_s();
        int clean = san_finish(j, correct);
        r->step_s[GRADE_STEP_SANITIZE] = now_s() - t0;
        if (correct && !clean)
            goto done;
    }
    if (!correct)
        goto done;
    progress(j, GRADE_STEP_REFERENCE, NULL);
    if (cancelled(j) || !timed(j, GRADE_STEP_REFERENCE, do_speed))
        goto done;
    r->outcome = OUTCOME_PASSED;
done:
    if (cancelled(j) && r->outcome == OUTCOME_NOT_RUN)
        result_set_reason(r, "cancelled");
    free(dump);
    free(j->run_tap);
    free(j->verify_tap);
}

struct task_result *grade_task(const struct task *t, const struct grade_opts *o)
{
    struct job j;
    job_init(&j, t, o);
    double t0 = now_s();
    char hash[HASH_HEX_LEN + 1];
    if (hash_file_hex(j.ex_src, hash) == 0)
        set_str(&j.r->exercise_hash, hash);
    run_steps(&j);
    struct task_result *r = j.r;
    r->duration_s = now_s() - t0;
    r->score = r->outcome == OUTCOME_PASSED ? r->max_score : 0;
    if (r->outcome == OUTCOME_SKIPPED)
        r->max_score = 0;
    progress(&j, GRADE_STEP_DONE, outcome_name(r->outcome));
    job_free(&j);
    return r;
}

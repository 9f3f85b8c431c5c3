/* grade_ncu.c — the speed's cross-check under Nsight Compute (grade_ncu.h): the table's
 * parser, the rule, and the step of a grading (grade_job.h) that runs it. */
#include "grade_ncu.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade_job.h"
#include "objcheck.h"

#define NCU_MAX_COLS 64
#define NCU_FIELD_MAX 512

/* ======================================================================= the table */
/* One CSV line's fields, unquoted ("" is a quote) into buf: the number of fields. */
static size_t csv_fields(const char *line, char *buf, size_t buflen, const char **f, size_t max)
{
    size_t n = 0, at = 0;
    const char *p = line;
    while (n < max && at < buflen) {
        f[n++] = buf + at;
        int quoted = *p == '"';
        p += quoted;
        while (*p && at + 1 < buflen) {
            if (quoted && p[0] == '"' && p[1] == '"')
                p++;
            else if (quoted ? *p == '"' : *p == ',')
                break;
            buf[at++] = *p++;
        }
        buf[at++] = 0;
        p += quoted && *p == '"';
        if (*p != ',')
            break;
        p++;
    }
    return n;
}

static int column(const char **f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i], name) == 0)
            return (int)i;
    return -1;
}

/* Milliseconds per unit of a time as ncu names it (base or scaled); 0 when not a time. */
static double unit_ms(const char *u)
{
    static const struct {
        const char *name, *abbrev;
        double ms;
    } units[] = {{"nsecond", "ns", 1e-6}, {"usecond", "us", 1e-3}, {"msecond", "ms", 1},
                 {"second", "s", 1e3}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(u, units[i].name) == 0 || strcmp(u, units[i].abbrev) == 0)
            return units[i].ms;
    return 0;
}

/* "1,234,567.5" -> 1234567.5 (the separators ncu prints in the C locale); -1 when not a number. */
static double number(const char *s)
{
    char digits[NCU_FIELD_MAX];
    size_t n = 0;
    for (; *s && n + 1 < sizeof digits; s++)
        if (*s != ',')
            digits[n++] = *s;
    digits[n] = 0;
    char *end;
    double v = strtod(digits, &end);
    return n && !*end && v >= 0 ? v : -1;
}

/* Where the table's columns are: Kernel Name (-1 when absent), Metric Name, Metric Unit,
 * Metric Value. */
struct ncu_cols {
    int kernel, name, unit, value;
};

static int parse_row(const char **f, size_t n, const struct ncu_cols *c, struct ncu_kernels *k,
                     char *err, size_t errlen)
{
    if ((size_t)c->name >= n || (size_t)c->unit >= n || (size_t)c->value >= n ||
        strcmp(f[c->name], NCU_METRIC) != 0)
        return 0;
    /* the harness's own kernels (inputs drawn on the GPU between the calls): the names the
     * object check keeps from every exercise, by the same test */
    if (c->kernel >= 0 && (size_t)c->kernel < n && objcheck_harness_name(f[c->kernel]))
        return 0;
    double per = unit_ms(f[c->unit]), v = number(f[c->value]);
    if (per <= 0 || v < 0) {
        snprintf(err, errlen, "ncu's %s reads \"%.40s\" \"%.20s\": not a time", NCU_METRIC,
                 f[c->value], f[c->unit]);
        return -1;
    }
    k->n++;
    k->total_ms += v * per;
    return 0;
}

int ncu_parse_csv(const char *text, struct ncu_kernels *k, char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    struct ncu_cols c = {-1, -1, -1, -1};
    char *copy = xstrdup(text ? text : ""), *save = NULL;
    char buf[NCU_FIELD_MAX * 8];
    const char *f[NCU_MAX_COLS];
    int rc = 0, header = 0;
    for (char *line = strtok_r(copy, "\r\n", &save); line && rc == 0;
         line = strtok_r(NULL, "\r\n", &save)) {
        if (line[0] != '"')
            continue; /* ==PROF== lines, and anything else that is not the table */
        size_t n = csv_fields(line, buf, sizeof buf, f, NCU_MAX_COLS);
        if (!header) {
            c = (struct ncu_cols){column(f, n, "Kernel Name"), column(f, n, "Metric Name"),
                                  column(f, n, "Metric Unit"), column(f, n, "Metric Value")};
            header = c.name >= 0 && c.unit >= 0 && c.value >= 0;
            continue;
        }
        rc = parse_row(f, n, &c, k, err, errlen);
    }
    free(copy);
    if (!header && rc == 0) {
        snprintf(err, errlen, "no table with Metric Name, Metric Unit and Metric Value columns "
                 "in ncu's output");
        rc = -1;
    }
    return rc;
}

const char *ncu_trouble(const char *text, char *buf, size_t len)
{
    if (!text)
        return NULL;
    if (strstr(text, "ERR_NVGPUCTRPERM")) {
        snprintf(buf, len, "GPU performance counters not permitted (ERR_NVGPUCTRPERM): the "
                 "driver lets only administrators read them, and student code runs without "
                 "capabilities");
        return buf;
    }
    const char *e = strstr(text, "==ERROR== ");
    if (e) {
        e += strlen("==ERROR== ");
        snprintf(buf, len, "ncu: %.*s", (int)strcspn(e, "\r\n"), e);
        return buf;
    }
    if (strstr(text, "No kernels were profiled")) {
        snprintf(buf, len, "ncu profiled no kernel");
        return buf;
    }
    return NULL;
}

int ncu_agrees(double harness_ms, double ncu_ms)
{
    return harness_ms >= NCU_AGREE_FACTOR * ncu_ms;
}

int ncu_wanted(double speed_ratio, double share, double draw)
{
    return speed_ratio > NCU_FASTER || draw < share;
}

/* ======================================================================= the step */
/* Uniform in [0, 1), from the system: nothing the student's code could have seen. */
static double ncu_draw(void)
{
    uint64_t v = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &v, sizeof v) != (ssize_t)sizeof v)
        v = (uint64_t)rand();
    if (fd >= 0)
        close(fd);
    return (double)(v >> 11) / (double)(1ull << 53);
}

static void unavailable(struct task_result *r, const char *why)
{
    r->ncu = NCU_UNAVAILABLE;
    set_str(&r->ncu_note, why);
}

/* Where the ncu launcher looks for the Nsight Compute install besides the toolkit (on the
 * course's H200 machine it is there: in the sandbox, without it, ncu said "nsight-compute
 * directory is not found under ... or /opt/nvidia"). */
static const char *const ncu_install_dirs[] = {"/opt/nvidia"};

/* ncu's directory, the one its link leads to (the toolkit's nsight-compute tree), and the
 * installs the launcher looks in, in the sandbox's view. */
static void ncu_view(struct job *j, const char *tool)
{
    for (size_t i = 0; i < sizeof ncu_install_dirs / sizeof *ncu_install_dirs; i++)
        if (access(ncu_install_dirs[i], R_OK) == 0)
            sandbox_add_ro(&j->sb, ncu_install_dirs[i]);
    char *dir = xstrdup(tool);
    *strrchr(dir, '/') = 0;
    sandbox_add_ro(&j->sb, dir);
    free(dir);
    char real[PATH_MAX];
    if (realpath(tool, real) && strrchr(real, '/')) {
        *strrchr(real, '/') = 0;
        sandbox_add_ro(&j->sb, real);
    }
}

/* The profiled run, with the GPU as use says (gpulock.h); returns ncu's log (malloc'd, NULL
 * when none), and in how the way it ended when it did not exit. Only the log is read: what the
 * program prints goes to ncu.out beside it, and could say anything, "==ERROR== ..." included. */
static char *ncu_run(struct job *j, const char *tool, const char *speed_case, enum gpu_use use,
                     char *how, size_t howlen)
{
    char reps[16];
    snprintf(reps, sizeof reps, "%d", NCU_REPS);
    char *log = path_join(j->scratch, "ncu.csv"), *dump = path_join(j->scratch, "ncu.dump");
    char *tap = path_join(j->scratch, "ncu.tap"), *out = job_work_file(j, "ncu.out");
    mkdir(dump, 0700);
    char *const argv[] = {(char *)tool, "--csv", "--page", "details", "--print-units", "base",
                          "--metrics", NCU_METRIC, "--clock-control", "none",
                          "--cache-control", "none", "--launch-skip", "1", "--log-file", log,
                          j->ex_bin, "--seed", j->seed_arg, "--dump", dump, "--report", tap,
                          "--case", (char *)speed_case, "--warmup", "0", "--reps", reps,
                          NULL};
    struct run_spec s;
    job_spec_student(j, &s, argv, j->o->ncu_timeout_s);
    s.stdout_path = s.stderr_path = out;
    s.data_bytes = 0; /* the profiler's own memory is not the student's */
    struct run_result res;
    job_run_gpu(j, &s, &res, use, 1);
    if (res.end == RUN_EXITED)
        how[0] = 0; /* what it had to say is in its log */
    else
        run_describe(&s, &res, how, howlen);
    char *text = read_text_file(log, LOG_READ_MAX);
    free(log);
    free(dump);
    free(tap);
    free(out);
    return text;
}

/* The kernels ncu's log lists, into *k: NULL, or why it gives none (ncu's own complaint, a
 * table that cannot be read, or no kernel profiled). */
static const char *ncu_read(const char *text, struct ncu_kernels *k, char *why, size_t len)
{
    const char *trouble = ncu_trouble(text, why, len);
    if (trouble)
        return trouble;
    if (ncu_parse_csv(text, k, why, len) != 0)
        return why;
    return k->n == 0 ? "ncu profiled no kernel" : NULL;
}

/* A first look's log that settles the cross-check: it profiled kernels, and the harness's time
 * agrees with theirs. Work beside it only makes its kernels slower, so agreement beside it
 * holds alone too; anything else is decided by a second look with the GPU alone. */
static int ncu_settles(const char *text, double harness_ms)
{
    char why[512];
    struct ncu_kernels k;
    return text && !ncu_read(text, &k, why, sizeof why) &&
           ncu_agrees(harness_ms, k.total_ms / NCU_REPS);
}

/* What the table says against the harness's time, recorded in the result (and as the
 * implausible fact when they disagree). */
static void ncu_judge(struct job *j, const char *text, const char *speed_case)
{
    struct task_result *r = j->r;
    struct ncu_kernels k;
    char why[512];
    const char *none = ncu_read(text, &k, why, sizeof why);
    if (none) {
        unavailable(r, none);
        return;
    }
    r->ncu_ms = k.total_ms / NCU_REPS;
    r->ncu = ncu_agrees(r->time_ms, r->ncu_ms) ? NCU_AGREES : NCU_DISAGREES;
    if (r->ncu == NCU_DISAGREES)
        job_fact(j, OUTCOME_IMPLAUSIBLE, "case %s: the harness reported %.3g ms a call, but "
                 "under ncu its kernels took %.3g ms a call (%zu kernels in %d calls)",
                 speed_case, r->time_ms, r->ncu_ms, k.n, NCU_REPS);
}

/* The tool, its view in the sandbox added once; NULL when none, and then, when say, r->ncu
 * unavailable with why. */
static char *ncu_tool(struct job *j, int say)
{
    char *tool = find_cuda_tool(j->o->ncu, "ncu");
    if (!tool) {
        if (say && j->o->ncu)
            unavailable(j->r, "ncu: the path given is not an executable");
        else if (say)
            unavailable(j->r, "ncu not found (PATH, CUDA_HOME/bin, /usr/local/cuda/bin)");
        return NULL;
    }
    if (!j->ncu_looked)
        ncu_view(j, tool);
    return tool;
}

void ncu_draw_look(struct job *j)
{
    j->ncu_draw = ncu_draw();
    const struct case_result *sc = job_flagged_case(j->r, task_speed_case(j->t), CASE_FLAG_SPEED);
    /* drawn: cross-checked whatever the ratio turns out to be */
    if (!ncu_wanted(0, j->o->ncu_share, j->ncu_draw) || !sc || job_cancelled(j))
        return;
    char *tool = ncu_tool(j, 0); /* none: step_ncu says so, if the speed passes */
    if (!tool)
        return;
    job_progress(j, GRADE_STEP_REFERENCE, "cross-checking under ncu");
    j->ncu_first = ncu_run(j, tool, sc->name, GPU_TIMED, j->ncu_first_how,
                           sizeof j->ncu_first_how);
    j->ncu_looked = 1;
    free(tool);
}

void step_ncu(struct job *j)
{
    struct task_result *r = j->r;
    double draw = j->ncu_draw >= 0 ? j->ncu_draw : ncu_draw();
    if (!r->speed_measured || !ncu_wanted(r->speed_ratio, j->o->ncu_share, draw))
        return;
    job_progress(j, GRADE_STEP_REFERENCE, "cross-checking under ncu");
    char *tool = ncu_tool(j, 1);
    if (!tool)
        return;
    char how[256] = "";
    char *text;
    if (j->ncu_looked) {
        text = j->ncu_first;
        j->ncu_first = NULL;
        snprintf(how, sizeof how, "%s", j->ncu_first_how);
    } else {
        text = ncu_run(j, tool, r->speed_case, GPU_TIMED, how, sizeof how);
    }
    if (!job_cancelled(j) && (how[0] || !ncu_settles(text, r->time_ms))) {
        free(text);
        how[0] = 0;
        text = ncu_run(j, tool, r->speed_case, GPU_ALONE, how, sizeof how);
    }
    char why[512];
    if (job_cancelled(j)) {
        r->ncu = NCU_NOT_RUN;
    } else if (how[0] && !ncu_trouble(text, why, sizeof why)) {
        char *note = xasprintf("ncu %s", how);
        unavailable(r, note);
        free(note);
    } else {
        ncu_judge(j, text, r->speed_case);
    }
    free(text);
    free(tool);
}

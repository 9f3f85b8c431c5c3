/* grade_ncu.c — the speed's cross-check under Nsight Compute (grade_ncu.h): the table's
 * parser, the rule, and the step of a grading (grade_steps.h) that runs it. */
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
#include "grade_steps.h"
#include "ncu_csv.h"
#include "objcheck.h"

/* ======================================================================= the table */
/* A kernel's duration in ms from its value and unit fields: 0 when counted (the harness's
 * kernels are left out), -1 with why in err when the value is not a time. */
static int add_kernel(const char *kernel, const char *unit, const char *value,
                      struct ncu_kernels *k, char *err, size_t errlen)
{
    /* the harness's own kernels (inputs drawn on the GPU between the calls): the names the
     * object check keeps from every exercise, by the same test */
    if (kernel && objcheck_harness_name(kernel))
        return 0;
    double per = ncu_unit_ms(unit), v = ncu_number(value);
    if (per <= 0 || !(v >= 0)) {
        snprintf(err, errlen, "ncu's %s reads \"%.40s\" \"%.20s\": not a time", NCU_METRIC,
                 value, unit);
        return -1;
    }
    k->n++;
    k->total_ms += v * per;
    return 0;
}

int ncu_parse_csv(const char *text, struct ncu_kernels *k, char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    struct ncu_table t;
    if (ncu_table_read(text, &t, err, errlen) != 0)
        return -1;
    int kernel = ncu_table_col(&t, "Kernel Name"), name = ncu_table_col(&t, "Metric Name");
    int unit = ncu_table_col(&t, "Metric Unit"), value = ncu_table_col(&t, "Metric Value");
    int wide = ncu_table_col(&t, NCU_METRIC);
    int rc = 0;
    if (name >= 0 && unit >= 0 && value >= 0) {
        /* --page details: one row per kernel and metric */
        for (size_t i = 0; i < t.n_rows && rc == 0; i++)
            if (strcmp(ncu_table_cell(&t, i, name), NCU_METRIC) == 0)
                rc = add_kernel(kernel >= 0 ? ncu_table_cell(&t, i, kernel) : NULL,
                                ncu_table_cell(&t, i, unit), ncu_table_cell(&t, i, value), k,
                                err, errlen);
    } else if (wide >= 0) {
        /* --page raw: one row per kernel, the unit in the units row */
        for (size_t i = 0; i < t.n_rows && rc == 0; i++)
            rc = add_kernel(kernel >= 0 ? ncu_table_cell(&t, i, kernel) : NULL, t.unit[wide],
                            ncu_table_cell(&t, i, wide), k, err, errlen);
    } else {
        snprintf(err, errlen, "no table with Metric Name, Metric Unit and Metric Value columns "
                 "or a %s column in ncu's output", NCU_METRIC);
        rc = -1;
    }
    ncu_table_free(&t);
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

char *ncu_logged_run(struct job *j, char *const *argv, int student, const char *log,
                     const char *out, enum gpu_use use, char *how, size_t howlen)
{
    struct run_spec s;
    if (student)
        job_spec_student(j, &s, argv, j->o->ncu_timeout_s);
    else
        job_spec_init(j, &s, argv, j->o->ncu_timeout_s);
    s.stdout_path = s.stderr_path = out;
    s.data_bytes = 0; /* the profiler's own memory is not the program's */
    struct run_result res;
    job_run_gpu(j, &s, &res, use, 1);
    if (res.end == RUN_EXITED)
        how[0] = 0; /* what it had to say is in its log */
    else
        run_describe(&s, &res, how, howlen);
    return read_text_file(log, LOG_READ_MAX);
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
    char *const argv[] = {(char *)tool, "--csv", "--page", "raw", "--print-units", "base",
                          "--metrics", NCU_METRIC, "--clock-control", "none",
                          "--cache-control", "none", "--launch-skip", "1", "--log-file", log,
                          j->ex_bin, "--seed", j->seed_arg, "--dump", dump, "--report", tap,
                          "--case", (char *)speed_case, "--warmup", "0", "--reps", reps,
                          NULL};
    char *text = ncu_logged_run(j, argv, 1, log, out, use, how, howlen);
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

char *ncu_tool(struct job *j, int say)
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

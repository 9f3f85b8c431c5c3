/* remote_job.c — one Slurm job that grades a student's tasks on a GPU node (remote.h): its
 * command line and script, sbatch, the wait through squeue (bounded), scancel, and the JSON
 * report read back. The job's files live in <build>/grader/slurm/job-XXXXXX/ on the shared
 * filesystem: job.sh, report.json and the job's log; they are removed once the report is read,
 * and kept (and named) when something went wrong. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "remote.h"

/* How long scancel's job may take to leave the queue, and squeue to stay silent. */
#define SCANCEL_WAIT_S 30.0
#define SQUEUE_SILENT_S 60.0
/* Batch's status line again, unchanged, after this long. */
#define STATUS_REPEAT_S 30.0

static void add(struct strlist *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct strlist *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    strlist_push(a, s);
    free(s);
}

/* The node's grader: --batch on the same course and exercises, its JSON report to dir. What
 * the options of this grading say goes with it; -j and the GPU are the node's. */
static void job_argv(const struct grade_opts *o, const char *exe, const char *report,
                     const char *const *ids, size_t n, struct strlist *a)
{
    struct grade_opts d;
    grade_opts_init(&d);
    add(a, "%s", exe);
    add(a, "--batch");
    add(a, "--no-slurm");
    add(a, "--root=%s", o->root);
    add(a, "--format=json");
    add(a, "--output=%s", report);
    add(a, "--no-state");
    add(a, "-v");
    if (o->seed_set)
        add(a, "--seed=%" PRIu64, o->seed);
    if (!o->sanitize)
        add(a, "--no-sanitize");
    add(a, "--timeout=%g", o->run_timeout_s);
    add(a, "--build-timeout=%g", o->build_timeout_s);
    if (o->mem_limit_bytes != d.mem_limit_bytes)
        add(a, "--mem-limit=%g", (double)o->mem_limit_bytes / (double)(1ull << 30));
    add(a, "--ncu-share=%g", o->ncu_share);
    if (o->ncu)
        add(a, "--ncu=%s", o->ncu);
    if (o->profile_args)
        add(a, "--profile");
    if (!o->build)
        add(a, "--no-build");
    if (o->no_sandbox)
        add(a, "--no-sandbox");
    if (o->no_objcheck)
        add(a, "--no-objcheck");
    if (o->no_witness)
        add(a, "--no-witness");
    if (o->exercises_dir) {
        add(a, "--exercises=%s", o->own_exercises ? o->own_exercises : o->exercises_dir);
        if (o->exbuild_dir)
            add(a, "--exbuild=%s", o->exbuild_dir);
    }
    for (size_t i = 0; i < n; i++)
        add(a, "%s", ids[i]);
}

void remote_status_line(const struct remote_job_state *s, double queued_s, double running_s,
                        char *line, size_t size)
{
    if (strcmp(s->state, "PENDING") == 0)
        snprintf(line, size, "job %s queued %.0f s%s%s%s", s->id, queued_s,
                 s->reason[0] ? " (" : "", s->reason, s->reason[0] ? ")" : "");
    else if (strcmp(s->state, "RUNNING") == 0)
        snprintf(line, size, "job %s running on %s for %.0f s", s->id,
                 s->node[0] ? s->node : "a node", running_s);
    else /* COMPLETING, ... and "done": Slurm's word as it is */
        snprintf(line, size, "job %s %s%s%s", s->id, s->state[0] ? s->state : "done",
                 s->node[0] ? " on " : "", s->node);
}

/* 1: in the queue (s filled); 0: gone; -1: squeue failed (msg says how). */
static int job_query(struct remote_job_state *s, char *msg, size_t msglen)
{
    char *argv[] = { "squeue", "-h", "-r", "-j", s->id, "-o", "%T|%N|%r", NULL };
    char *out = NULL;
    int rc = run_capture(argv, 1, 65535, &out, NULL);
    if (rc < 0) {
        snprintf(msg, msglen, "squeue could not be run");
        return -1;
    }
    int ret;
    char *nl = strchr(out, '\n');
    if (nl)
        *nl = 0;
    if (rc != 0 && strstr(out, "Invalid job id"))
        ret = 0;
    else if (rc != 0) {
        snprintf(msg, msglen, "squeue: %s", out);
        ret = -1;
    } else if (!out[0])
        ret = 0;
    else {
        char *node = strchr(out, '|'), *reason = node ? strchr(node + 1, '|') : NULL;
        if (node)
            *node++ = 0;
        if (reason)
            *reason++ = 0;
        snprintf(s->state, sizeof s->state, "%s", out);
        snprintf(s->node, sizeof s->node, "%s", node ? node : "");
        snprintf(s->reason, sizeof s->reason, "%s", reason && strcmp(reason, "None") ? reason : "");
        ret = 1;
    }
    free(out);
    if (ret == 0)
        s->state[0] = 0;
    return ret;
}

/* Sleeps up to s seconds; 1 when cancelled meanwhile. */
static int nap(const struct grade_opts *o, double s)
{
    for (double t0 = now_s(); now_s() - t0 < s;) {
        if (o->cancel && *o->cancel)
            return 1;
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return o->cancel && *o->cancel;
}

/* scancel, then the wait until the job left the queue (bounded). 0 when it did. */
static int job_cancel(struct remote_job_state *s)
{
    char *argv[] = { "scancel", s->id, NULL };
    char *out = NULL;
    run_capture(argv, 1, 4096, &out, NULL);
    free(out);
    char msg[256];
    for (double t0 = now_s(); now_s() - t0 < SCANCEL_WAIT_S;) {
        if (job_query(s, msg, sizeof msg) == 0)
            return 0;
        struct timespec ts = { 0, 250 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* The "graded ..." lines the node's grader has written to the job's log so far. */
static size_t graded_so_far(const char *log)
{
    char *text = read_text_file(log, (size_t)4 << 20);
    size_t n = 0;
    for (char *p = text; p && (p = strstr(p, "graded  ")); p++)
        n += p == text || p[-1] == '\n';
    free(text);
    return n;
}

static void show(const struct remote_target *rt, const struct grade_opts *o,
                 const struct task *shown, const char *line)
{
    if (o->progress && shown)
        o->progress(o->progress_user, shown, GRADE_STEP_SLURM, line);
    if (rt->status)
        rt->status(rt->status_user, line);
}

/* The last line of the job's log that says something, for an error. */
static void log_tail(const char *log, char *buf, size_t size)
{
    char *text = read_text_file(log, (size_t)4 << 20);
    size_t n = text ? strlen(text) : 0;
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\r'))
        text[--n] = 0;
    char *last = text ? strrchr(text, '\n') : NULL;
    last = last ? last + 1 : text;
    snprintf(buf, size, "%s", last && last[0] ? last : "(nothing)");
    free(text);
}

/* Follows the job until it leaves the queue: 0; 1 cancelled; -1 err set. */
static int job_wait(const struct remote_target *rt, const struct grade_opts *o,
                    struct remote_job_state *s, const char *log, size_t n,
                    const struct task *shown, char *err, size_t errlen)
{
    double submitted = now_s(), started = 0, silent_since = 0, shown_at = 0;
    char last[256] = "", line[256], msg[256];
    for (;;) {
        if (o->cancel && *o->cancel) {
            if (job_cancel(s) != 0)
                snprintf(err, errlen, "job %s: scancel did not take it out of the queue within "
                         "%.0f s", s->id, SCANCEL_WAIT_S);
            return 1;
        }
        int q = job_query(s, msg, sizeof msg);
        double now = now_s();
        if (q == 0)
            return 0;
        if (q < 0) {
            if (!silent_since)
                silent_since = now;
            if (now - silent_since > SQUEUE_SILENT_S) {
                snprintf(err, errlen, "job %s: %s, for %.0f s; the job may still run (scancel "
                         "%s)", s->id, msg, SQUEUE_SILENT_S, s->id);
                return -1;
            }
        } else {
            silent_since = 0;
            if (strcmp(s->state, "PENDING") != 0 && !started)
                started = now;
            if (!started && now - submitted > rt->queue_limit_s) {
                char why[128];
                snprintf(why, sizeof why, "%s", s->reason[0] ? s->reason : "none given");
                int gone = job_cancel(s) == 0;
                snprintf(err, errlen, "job %s did not start within %.0f s (Slurm's reason: %s); "
                         "%s ([slurm] queue_limit or --slurm-queue-limit sets the limit)",
                         s->id, rt->queue_limit_s, why,
                         gone ? "it was cancelled" : "scancel did not take it out of the queue");
                return -1;
            }
            remote_status_line(s, now - submitted, started ? now - started : 0, line,
                               sizeof line);
            size_t k = started ? graded_so_far(log) : 0;
            if (k)
                snprintf(line + strlen(line), sizeof line - strlen(line),
                         ", %zu of %zu graded", k, n);
            /* the TUI redraws every time; batch writes a line when it says something new */
            if (o->progress && shown)
                o->progress(o->progress_user, shown, GRADE_STEP_SLURM, line);
            char key[256];
            snprintf(key, sizeof key, "%s|%s|%s|%zu", s->state, s->node, s->reason, k);
            if (rt->status && (strcmp(key, last) != 0 || now - shown_at > STATUS_REPEAT_S)) {
                rt->status(rt->status_user, line);
                snprintf(last, sizeof last, "%s", key);
                shown_at = now;
            }
        }
        if (nap(o, rt->poll_s))
            continue;
    }
}

static char *job_dir_make(const struct grade_opts *o)
{
    const char *b = o->build_dir ? o->build_dir : "build";
    char *base = b[0] == '/' ? xasprintf("%s/grader/slurm", b)
                             : xasprintf("%s/%s/grader/slurm", o->root, b);
    char *dir = xasprintf("%s/job-XXXXXX", base);
    if (mkdir_p(base) != 0 || !mkdtemp(dir)) {
        free(dir);
        dir = NULL;
    }
    free(base);
    return dir;
}

/* sbatch's reply in one line: its lines joined, without their "sbatch: " (slurm_submit's
 * err, "sbatch: LINE\nLINE..."). */
static void one_line(char *err)
{
    char *out = err;
    for (const char *p = err; *p;) {
        while (strncmp(p, "sbatch: ", 8) == 0)
            p += 8;
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (out != err && n)
            out += sprintf(out, "; ");
        memmove(out, p, n);
        out += n;
        p += n + (nl != NULL);
    }
    *out = 0;
}

static int job_submit(const struct remote_target *rt, const struct grade_opts *o,
                      const char *dir, const char *const *ids, size_t n,
                      struct remote_job_state *s, char *err, size_t errlen)
{
    char *exe = realpath("/proc/self/exe", NULL);
    char *report = path_join(dir, "report.json"), *script_path = path_join(dir, "job.sh");
    struct strlist a = { 0 };
    job_argv(o, exe ? exe : "grader", report, ids, n, &a);
    char *script = slurm_script(&rt->sl, "grader-student", 1, dir, o->root,
                                (const char *const *)a.v, a.n);
    int rc = -1;
    if (!script)
        snprintf(err, errlen, "an sbatch option is empty or has white space, or the course's "
                 "path has (%s): #SBATCH lines cannot carry it", o->root);
    else if (write_atomic(script_path, script, strlen(script)) != 0 ||
             chmod(script_path, 0755) != 0)
        snprintf(err, errlen, "cannot write %s: %s", script_path, strerror(errno));
    else if (slurm_submit(script_path, s->id, sizeof s->id, err, errlen) == 0)
        rc = 0;
    else {
        one_line(err);
        size_t n = strlen(err);
        const char *head = "sbatch refused the job: ";
        if (n + strlen(head) < errlen) {
            memmove(err + strlen(head), err, n + 1);
            memcpy(err, head, strlen(head));
        }
    }
    free(script);
    strlist_free(&a);
    free(exe);
    free(report);
    free(script_path);
    return rc;
}

int remote_job_run(const struct remote_target *rt, const struct grade_opts *o,
                   const char *const *ids, size_t n, const struct task *shown,
                   cJSON **report, char *err, size_t errlen)
{
    *report = NULL;
    struct remote_job_state s = { 0 };
    char *dir = job_dir_make(o);
    if (!dir) {
        snprintf(err, errlen, "cannot create the job's directory under %s: %s", o->root,
                 strerror(errno));
        return -1;
    }
    show(rt, o, shown, "submitting the job (sbatch)");
    if (job_submit(rt, o, dir, ids, n, &s, err, errlen) != 0) {
        remove_tree(dir);
        free(dir);
        return -1;
    }
    char *log = xasprintf("%s/%s_0.out", dir, s.id);
    int rc = job_wait(rt, o, &s, log, n, shown, err, errlen);
    char *path = path_join(dir, "report.json");
    char *text = rc == 0 ? read_text_file(path, (size_t)64 << 20) : NULL;
    if (rc == 0) {
        *report = text ? cJSON_Parse(text) : NULL;
        char tail[512];
        log_tail(log, tail, sizeof tail);
        if (!text)
            snprintf(err, errlen, "job %s ended without a report; its log %s ends: %s", s.id,
                     log, tail);
        else if (!*report)
            snprintf(err, errlen, "job %s: %s is not JSON", s.id, path);
        if (*report) {
            snprintf(s.state, sizeof s.state, "done");
            char line[256];
            remote_status_line(&s, 0, 0, line, sizeof line);
            snprintf(line + strlen(line), sizeof line - strlen(line), ", %zu of %zu graded",
                     graded_so_far(log), n);
            show(rt, o, NULL, line);
        }
        rc = *report ? 0 : -1;
    }
    if (rc == 0 || (rc == 1 && !err[0]))
        remove_tree(dir);
    free(text);
    free(path);
    free(log);
    free(dir);
    return rc;
}

/* grade_san.c — compute-sanitizer's step of a grading (grade_steps.h): every tool of the task
 * on every case the graded run runs but the speed case, and on the speed case's shape scaled
 * down (san_cases), started together so that they overlap the verification; each tool's dump
 * is verified as the graded run's is. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade_job.h"
#include "grade_steps.h"

/* The tool's run, then its dump's verdict: a program that computes otherwise when it is
 * watched (it can tell, by its own slowness) is still graded on what it computed there. */
static void *san_thread(void *arg)
{
    struct san_job *s = arg;
    const struct job *j = s->job;
    int was_beside = job_beside_thread(1); /* run on the grading's thread when none started */
    job_run_gpu(j, &s->spec, &s->res, GPU_SHARED, 0);
    s->verdict = -1;
    if (s->res.end == RUN_EXITED && s->res.exit_status == LAB_EXIT_PASS && !j->san_cancel) {
        char *report = xasprintf("%s.verify.tap", s->log);
        char *out = xasprintf("%s.verify.out", strrchr(s->log, '/') + 1);
        s->verdict = verify_beside(j, s->dump, report, out, j->san_cases, j->n_san_cases,
                                   &j->san_cancel, s->why, sizeof s->why);
        free(report);
        free(out);
    }
    job_beside_thread(was_beside);
    return NULL;
}

/* The cases the tools run, into out (names in j->cases): every case but the speed case and
 * those --list flags large (whose size the tools cannot afford: a run under racecheck is
 * hundreds of times slower; measured on the H200, the 2048^3 and 1023x517x2049 products took
 * 41-65 s under the tools) -- the small ones and the awkward shapes -- and the case --list
 * flags sanitize, the speed case's shape scaled down, so that what only its shape does (tiles
 * without remainders, a grid-stride loop over a full grid) is seen too. A speed case flagged
 * small is small enough. lesson.ini's sanitize_case narrows it to that case and the scaled
 * one. */
static size_t san_cases(const struct job *j, char **out)
{
    const char *named = task_sanitize_case(j->t);
    size_t n = 0;
    for (size_t i = 0; i < j->n_cases; i++) {
        const struct list_case *c = &j->cases[i];
        int take = (c->flags & CASE_FLAG_SANITIZE) ||
                   (named[0] ? strcmp(c->name, named) == 0
                             : !(c->flags & (CASE_FLAG_SPEED | CASE_FLAG_LARGE)) ||
                                   (c->flags & CASE_FLAG_SMALL));
        if (take)
            out[n++] = c->name;
    }
    return n;
}

/* The sandbox's own complaint ("bwrap: Can't mkdir ..."), when it could not start the tool:
 * the grader's failure, not the program's. Copied into buf without its newline. */
static int sandbox_error(const char *text, char *buf, size_t len)
{
    if (!text || strncmp(text, "bwrap: ", 7) != 0)
        return 0;
    snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
    return 1;
}

/* Reads one tool's log into its sanitizer_run and the result's findings. A sandbox that could
 * not start the tool leaves its line in grader_err. */
static void san_collect(struct job *j, struct sanitizer_run *sr, struct san_job *s,
                        char *grader_err, size_t err_len)
{
    struct task_result *r = j->r;
    const char *tool = sr->tool;
    char *text = read_text_file(s->log, LOG_READ_MAX);
    if (s->res.end == RUN_EXITED && s->res.exit_status != LAB_EXIT_PASS &&
        sandbox_error(text, grader_err, err_len)) {
        free(text);
        sr->status = SANITIZER_UNAVAILABLE;
        set_str(&sr->note, grader_err);
        return;
    }
    size_t room = r->n_findings < MAX_FINDINGS ? MAX_FINDINGS - r->n_findings : 0;
    size_t from = r->n_findings;
    sr->n_findings = text ? parse_sanitizer_output(text, tool, j->root, r, room) : 0;
    job_show_exercises(j, r->n_diags, from);
    char tool_err[512] = "";
    int tool_failed = text && sanitizer_tool_error(text, tool_err, sizeof tool_err);
    free(text);
    if (s->res.end == RUN_TIMED_OUT) {
        sr->status = SANITIZER_TIMED_OUT;
        set_str(&sr->note, "timed out: not counted against the task");
    } else if (sr->n_findings > 0) {
        sr->status = SANITIZER_FINDINGS;
    } else if (s->res.end == RUN_EXITED && s->res.exit_status == LAB_EXIT_PASS) {
        sr->status = SANITIZER_CLEAN;
    } else if (s->res.end == RUN_EXITED && s->res.exit_status == LAB_EXIT_SKIP) {
        sr->status = SANITIZER_UNAVAILABLE;
        set_str(&sr->note, "the program found no usable GPU under compute-sanitizer");
    } else if (tool_failed) {
        sr->status = SANITIZER_UNAVAILABLE;
        set_str(&sr->note, tool_err);
    } else {
        char how[256];
        run_describe(&s->spec, &s->res, how, sizeof how);
        sr->status = s->res.end == RUN_EXITED && s->res.exit_status == LAB_EXIT_SANITIZER ? SANITIZER_FINDINGS
                                                                           : SANITIZER_FAILED;
        char *note = xasprintf("under %s: %s", tool, how);
        set_str(&sr->note, note);
        free(note);
    }
}

/* The sanitizer fact, when some tool found an error or the program failed under one (a
 * correct program passes under every tool: counted, or a program that crashes when watched
 * would hide its findings); first_at: the first finding's index. */
static void san_record_fact(struct job *j, size_t first_at)
{
    const struct task_result *r = j->r;
    int clean = 1;
    const struct sanitizer_run *failed = NULL;
    for (size_t k = 0; k < r->n_sanitizer_runs; k++) {
        clean &= r->sanitizer_runs[k].status != SANITIZER_FINDINGS;
        if (!failed && r->sanitizer_runs[k].status == SANITIZER_FAILED)
            failed = &r->sanitizer_runs[k];
    }
    if (clean && failed) {
        job_fact(j, OUTCOME_SANITIZER, "the program failed %s; it must pass under the tool too",
                 failed->note ? failed->note : "under compute-sanitizer");
        return;
    }
    if (clean)
        return;
    const struct sanitizer_finding *first = first_at != SIZE_MAX ? &r->findings[first_at] : NULL;
    if (first && first->file[0])
        job_fact(j, OUTCOME_SANITIZER, "%s: %s in %s at %s:%d", first->tool, first->kind,
                 first->kernel[0] ? first->kernel : "a kernel", first->file, first->line);
    else if (first)
        job_fact(j, OUTCOME_SANITIZER, "%s: %s", first->tool, first->kind);
    else
        job_fact(j, OUTCOME_SANITIZER, "compute-sanitizer reported an error: see its log");
}

/* Every tool of the task at once, started right after the exercise's run so that they overlap
 * the verification: each is its own process on the cases san_cases picks, so the step takes
 * as long as the slowest tool, and mostly while the verifier works anyway. Nothing is
 * recorded until san_finish; when the answer is wrong they are killed and forgotten. */
void san_start(struct job *j)
{
    j->san_tool = find_cuda_tool(j->o->sanitizer, "compute-sanitizer");
    j->n_san = task_sanitizer_count(j->t);
    j->san = xcalloc(j->n_san, sizeof *j->san);
    for (size_t k = 0; k < j->n_san; k++)
        j->san[k].verdict = -1; /* not run, not checked */
    j->san_cases = xcalloc(j->n_cases + 1, sizeof *j->san_cases);
    j->n_san_cases = san_cases(j, j->san_cases);
    if (!j->san_tool || j->n_san_cases == 0)
        return;
    /* A scratch of their own: they may run while the graded run writes its dump and while the
     * verifier reads it, and neither side can reach the other's files. */
    char *scratch = job_work_file(j, "scratch2");
    if (mkdir(scratch, 0700) != 0) {
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot make %s: %s", scratch, strerror(errno));
        free(scratch);
        return;
    }
    j->san_scratch = scratch;
    sandbox_init_like(&j->san_sb, &j->sb, scratch);
    char *tool_dir = xstrdup(j->san_tool);
    *strrchr(tool_dir, '/') = 0;
    sandbox_add_ro(&j->san_sb, tool_dir);
    free(tool_dir);
    for (size_t k = 0; k < j->n_san; k++) {
        const char *tool = task_sanitizer(j->t, k);
        struct san_job *s = &j->san[k];
        char *name = xasprintf("sanitizer-%s.log", tool);
        s->job = j;
        s->log = job_work_file(j, name);
        free(name);
        /* The exercise's options are those of its graded run (step_run), with a dump and a
         * report of its own: nothing in them tells it that it runs under the tool. Both in
         * the tools' scratch, the one place their sandbox lets them write (in the work
         * directory every tool run ended before its first CUDA call, and was counted as no
         * tool at all). */
        s->dump = xasprintf("%s/dump%zu", scratch, k + 1);
        s->report = xasprintf("%s/report%zu.tap", scratch, k + 1);
        mkdir(s->dump, 0700);
        s->argv = xcalloc(16 + 2 * j->n_san_cases, sizeof *s->argv);
        size_t n = 0;
        char *const head[] = {j->san_tool, "--tool", (char *)tool, "--error-exitcode",
                              LAB_EXIT_SANITIZER_ARG, "--print-limit", "50", j->ex_bin,
                              "--seed", j->seed_arg, "--dump", s->dump, "--report", s->report};
        for (size_t a = 0; a < sizeof head / sizeof *head; a++)
            s->argv[n++] = head[a];
        for (size_t c = 0; c < j->n_san_cases; c++) {
            s->argv[n++] = "--case";
            s->argv[n++] = j->san_cases[c];
        }
        job_spec_student(j, &s->spec, s->argv, j->o->sanitize_timeout_s);
        s->spec.cwd = s->spec.disk_dir = scratch;
        if (s->spec.sandbox)
            s->spec.sandbox = &j->san_sb;
        s->spec.stdout_path = s->spec.stderr_path = s->log;
        s->spec.data_bytes = 0; /* the tool's own memory is not the student's */
        s->spec.env = j->san_env;
        s->spec.cancel = &j->san_cancel;
        s->started = pthread_create(&s->thread, NULL, san_thread, s) == 0;
        if (!s->started)
            san_thread(s);
    }
}

/* The wrong fact when a tool's dump was verified wrong (the first tool's), once the
 * reference's hash says that its verdict can be believed. */
static void san_record_wrong(struct job *j)
{
    for (size_t k = 0; k < j->n_san; k++)
        if (j->san[k].verdict == 0) {
            if (sol_intact(j))
                job_fact(j, OUTCOME_WRONG, "under compute-sanitizer (%s), %s",
                         task_sanitizer(j->t, k), j->san[k].why);
            return;
        }
}

/* Waits for the tools; when keep, records their runs and findings. */
void san_finish(struct job *j, int keep)
{
    struct task_result *r = j->r;
    if (!keep || (j->o->cancel && *j->o->cancel))
        j->san_cancel = 1;
    size_t first_at = SIZE_MAX; /* an index: adding findings moves them */
    char grader_err[512] = "";
    for (size_t k = 0; k < j->n_san; k++) {
        struct san_job *s = &j->san[k];
        if (keep)
            job_progress(j, GRADE_STEP_SANITIZE, task_sanitizer(j->t, k));
        if (s->started)
            pthread_join(s->thread, NULL);
        if (keep) {
            struct sanitizer_run *sr = result_add_sanitizer_run(r, task_sanitizer(j->t, k));
            if (!s->log) {
                sr->status = SANITIZER_UNAVAILABLE;
                set_str(&sr->note, !j->san_tool ? "compute-sanitizer not found (PATH, "
                                                  "CUDA_HOME/bin, /usr/local/cuda/bin): not run"
                                                : "no case to run it on");
            } else {
                set_str(&sr->log_path, s->log);
                size_t before = r->n_findings;
                san_collect(j, sr, s, grader_err, sizeof grader_err);
                if (first_at == SIZE_MAX && r->n_findings > before)
                    first_at = before;
            }
        }
    }
    if (keep && !grader_err[0])
        san_record_wrong(j);
    for (size_t k = 0; k < j->n_san; k++) {
        free(j->san[k].log);
        free(j->san[k].dump);
        free(j->san[k].report);
        free(j->san[k].argv);
    }
    free(j->san);
    free(j->san_cases);
    j->san_cases = NULL;
    free(j->san_tool);
    j->san = NULL;
    j->san_tool = NULL;
    if (j->san_scratch) {
        remove_tree(j->san_scratch);
        free(j->san_scratch);
        sandbox_free(&j->san_sb);
        j->san_scratch = NULL;
    }
    if (keep && grader_err[0])
        job_fact(j, OUTCOME_NOT_RUN, "grader error: the sandbox could not start compute-sanitizer "
                 "(%s)", grader_err);
    else if (keep)
        san_record_fact(j, first_at);
}

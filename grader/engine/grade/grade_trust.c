/* grade_trust.c — the steps that keep a grading honest about what it runs: the exercise's
 * object checked before any of it runs (objcheck.h), the reference binary's hash checked
 * whenever its verdict or time is about to count, and a skip believed only when the
 * reference, on the same machine, skips too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "grade_job.h"
#include "grade_steps.h"
#include "objcheck.h"

int step_symbols(struct job *j)
{
    if (j->o->no_objcheck)
        return 1;
    const struct lesson *l = task_lesson(j->t);
    char *header = xasprintf("%s/%s.h", lesson_dir(l), task_name(j->t));
    char *shown = xasprintf("exercises/%s/%s.cu", lesson_id(l), task_name(j->t));
    struct strlist contract = {0};
    struct objcheck_rules rules = {shown, j->ex_src, &contract, &j->t->allow, &j->t->forbid};
    struct objcheck_verdict v = {0};
    char err[512] = "";
    int ok = 0;
    if (objcheck_contract(header, &contract) < 0) {
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot read the contract %s: %s", header,
                 strerror(errno));
    } else if (objcheck_object(j->ex_obj, j->work, &rules, &v, err, sizeof err) < 0) {
        job_fact(j, OUTCOME_BUILD_FAILED, "%s", err);
    } else {
        for (size_t i = 0; i < v.forbidden.n; i++)
            strlist_push(&j->r->forbidden, v.forbidden.v[i]);
        ok = !v.rejected;
        if (!ok)
            job_fact(j, OUTCOME_REJECTED, "%s", v.reason);
    }
    objcheck_verdict_free(&v);
    strlist_free(&contract);
    free(header);
    free(shown);
    return ok;
}

int sol_hash_take(struct job *j)
{
    if (hash_file_hex(j->sol_bin, j->sol_hash) == 0)
        return 1;
    job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot read the reference binary %s to take its "
             "hash", j->sol_bin);
    return 0;
}

int sol_intact(struct job *j)
{
    char now[HASH_HEX_LEN + 1];
    if (hash_file_hex(j->sol_bin, now) == 0 && strcmp(now, j->sol_hash) == 0)
        return 1;
    job_fact(j, OUTCOME_NOT_RUN, "grader error: %s is not the binary the grader built (its hash "
             "changed during the grading): no verdict or time of this grading is trusted",
             j->sol_bin);
    return 0;
}

/* The reference on the small case, timing nothing: its exit status says whether this machine
 * can run the task at all. -1: it neither ran nor skipped (how says why). */
static int reference_probe(struct job *j, char *how, size_t howlen)
{
    const struct task_result *r = j->r;
    const struct case_result *small = job_flagged_case(r, task_sanitize_case(j->t),
                                                       CASE_FLAG_SMALL);
    const char *name = small ? small->name : r->n_cases ? r->cases[0].name : NULL;
    if (!name) {
        snprintf(how, howlen, "has no case to run");
        return -1;
    }
    char *out = job_work_file(j, "probe.out");
    char *argv[] = {j->sol_bin, "--case", (char *)name, "--no-check", "--reps", "1",
                    "--warmup", "0", "--seed", j->seed_arg, NULL};
    struct run_spec s;
    job_spec_init(j, &s, argv, j->o->verify_timeout_s);
    s.stdout_path = s.stderr_path = out;
    struct run_result res;
    job_run_gpu(j, &s, &res, GPU_SHARED, 0);
    free(out);
    run_describe(&s, &res, how, howlen);
    return res.end == RUN_EXITED ? res.exit_status : -1;
}

/* The skip fact, from the exercise's own SKIP line. */
static void record_skip(struct job *j)
{
    struct task_result *r = j->r;
    char *line = job_first_line(r->stdout_path, "SKIP");
    if (!strstr(line, "SKIP")) {
        free(line);
        line = job_first_line(r->stderr_path, "SKIP");
    }
    /* the outcome says "skipped" already; a machine without a driver says so plainly,
     * whatever the CUDA runtime made of it */
    const char *why = line[0] ? line : "no usable GPU";
    if (strncmp(why, "SKIP:", 5) == 0)
        why += 5 + strspn(why + 5, " ");
    const char *no_driver = doctor_no_driver(NULL);
    job_fact(j, OUTCOME_SKIPPED, "%s", no_driver ? no_driver : why);
    free(line);
}

int skip_checked(struct job *j)
{
    if (!sol_intact(j))
        return 0;
    char how[256];
    int probe = reference_probe(j, how, sizeof how);
    if (probe == LAB_EXIT_SKIP)
        record_skip(j);
    else if (probe == LAB_EXIT_PASS || probe == LAB_EXIT_FAIL)
        job_fact(j, OUTCOME_CRASHED, "exited 77 (skip) but this machine has a usable GPU");
    else
        job_fact(j, OUTCOME_NOT_RUN, "grader error: the skip could not be checked: the "
                 "reference's probe %s", how);
    return 0;
}

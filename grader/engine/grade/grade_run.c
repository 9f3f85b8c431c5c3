/* grade_run.c — steps 3 and 4 of a grading (grade_steps.h): the cases the reference's --list
 * gives, and the exercise's graded run in the sandbox, through the GPU's gate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grade_job.h"
#include "grade_steps.h"
#include "refcache.h"
#include "tap.h"

int step_list(struct job *j)
{
    char *out = job_work_file(j, "list.out");
    char *argv[] = {j->sol_bin, "--list", NULL};
    struct run_spec s;
    job_spec_init(j, &s, argv, j->o->verify_timeout_s);
    s.stdout_path = out;
    struct run_result res;
    run_sandboxed(&s, &res);
    char *text = read_text_file(out, LOG_READ_MAX);
    free(out);
    if (text)
        j->n_cases = parse_case_list(text, &j->cases);
    free(text);
    if (res.end != RUN_EXITED || res.exit_status != LAB_EXIT_PASS || j->n_cases == 0) {
        job_fact(j, OUTCOME_BUILD_FAILED, "the reference solution's --list gave no cases");
        return 0;
    }
    for (size_t i = 0; i < j->n_cases; i++) {
        struct case_result *c = result_add_case(j->r, j->cases[i].name);
        set_str(&c->dims, j->cases[i].dims);
        c->flags = j->cases[i].flags;
    }
    return 1;
}

/* How long the exercise may hold its turn at the GPU, asked as the turn is taken
 * (job.turn_bound): TURN_FACTOR times the reference's own run past its gate, when the
 * class's cache (refcache.h) has one, and no less than TURN_MIN_S; else 0 (the run's
 * wall-clock limit alone). While a timed run holds its turn no other is timed: a kernel that
 * never ends held every grading of a class back for the whole limit (60 s), where the
 * reference's run takes under 2 s on the H200. A run this far past the reference fails the
 * task whatever it would have printed. A class times each task's reference on each GPU
 * before its first round needs it (class/student.c: time_references), so that round is
 * bounded too: without, a hanging student of the first round held an H200 x2 host's GPU 0
 * for 59 s. */
#define TURN_FACTOR 10
#define TURN_MIN_S 5.0
static double turn_bound(const struct job *j)
{
    const struct case_result *sc = job_flagged_case(j->r, task_speed_case(j->t), CASE_FLAG_SPEED);
    if (!j->o->ref_cache || !sc)
        return 0;
    char *key = job_ref_key(j, sc->name);
    struct ref_time t;
    double bound = refcache_peek(j->o->ref_cache, key, &t) == 1 && t.turn_s > 0
                       ? fmax(TURN_MIN_S, TURN_FACTOR * t.turn_s)
                       : 0;
    free(key);
    return bound;
}

/* The exercise's run. Returns 1 when verification should follow. */
int step_run(struct job *j, const char *dump, const char *report)
{
    struct task_result *r = j->r;
    /* Every case by name: the sanitizer's runs name theirs the same way (san_start). */
    char **argv = xcalloc(8 + 2 * j->n_cases, sizeof *argv);
    size_t n = 0;
    argv[n++] = j->ex_bin;
    argv[n++] = "--seed";
    argv[n++] = j->seed_arg;
    argv[n++] = "--dump";
    argv[n++] = (char *)dump;
    argv[n++] = "--report";
    argv[n++] = (char *)report;
    for (size_t i = 0; i < j->n_cases; i++) {
        argv[n++] = "--case";
        argv[n++] = j->cases[i].name;
    }
    struct run_spec s;
    job_spec_student(j, &s, argv, j->o->run_timeout_s);
    s.threads_only = 1; /* the program itself, no tool around it: one process */
    s.stdout_path = r->stdout_path;
    s.stderr_path = r->stderr_path;
    j->turn_bound = turn_bound;
    struct run_result res;
    /* the second look decides: it has the GPU alone; the witness's key is drawn anew */
    job_witness_init(j, &j->run_witness, LAB_GATE_PICKS);
    job_run_witnessed(j, &s, &res, r->speed_first_ratio >= 0 ? GPU_ALONE : GPU_TIMED,
                      &j->run_witness);
    j->turn_bound = NULL;
    char how[256];
    run_describe(&s, &res, how, sizeof how);
    free(argv);
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
        job_fact(j, OUTCOME_TIMED_OUT, "%s", how);
        return 0;
    case RUN_CANCELLED:
        return 0;
    case RUN_SIGNALED:
    case RUN_FLOODED:
    case RUN_FORKED:
    case RUN_DISK_FULL:
    case RUN_SPAWN_FAILED:
        job_fact(j, OUTCOME_CRASHED, "%s", how);
        return 1;
    case RUN_EXITED:
        break;
    }
    /* The harness passes the gate before the first case, and no code of the student's runs
     * before main once the object check passed: cases that ran without passing it ran with
     * the GPU shared, beside compute-sanitizer's runs, and their times are not the turn's
     * (the grader's own fault, a harness that lost the gate's variable). Without the object
     * check a constructor of the student's may end the program before main: that is the
     * sandbox's case, and the verifier decides it as any other run. */
    if ((res.exit_status == LAB_EXIT_PASS || res.exit_status == LAB_EXIT_FAIL) &&
        !res.gate_passed && !j->o->no_objcheck) {
        job_fact(j, OUTCOME_NOT_RUN, "grader error: %s ran its cases without passing the GPU's "
                 "gate (%s)", task_name(j->t), LAB_GATE_ENV);
        return 0;
    }
    if (res.exit_status == LAB_EXIT_PASS || res.exit_status == LAB_EXIT_FAIL)
        return 1;
    if (res.exit_status == LAB_EXIT_SKIP)
        return skip_checked(j);
    if (res.exit_status == LAB_EXIT_CUDA) {
        char *line = job_first_line(r->stderr_path, ": ");
        job_fact(j, OUTCOME_CUDA_ERROR, "%s", line[0] ? line : "CUDA error (exit status 3)");
        free(line);
        return 1;
    }
    job_fact(j, OUTCOME_CRASHED, "%s%s", how, res.exit_status == LAB_EXIT_USAGE ? " (usage error)" : "");
    return 1;
}

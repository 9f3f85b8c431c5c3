/* grade_check.c — the solution's side of a grading (grade_steps.h): the verification of the
 * exercise's dump, and the reference's time on the speed case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade_job.h"
#include "grade_steps.h"
#include "refcache.h"
#include "tap.h"

static enum case_status status_of(const char *s)
{
    if (strcmp(s, LAB_STATUS_PASS) == 0)
        return CASE_PASS;
    if (strcmp(s, LAB_STATUS_FAIL) == 0)
        return CASE_FAIL;
    if (strcmp(s, LAB_STATUS_SKIP) == 0)
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

/* The verifier on dump, every case it holds or only those named (n_names > 0), its report to
 * report and its output to the work directory's out; how it ended in *res. *s keeps its
 * bounds and argv for run_describe, until verifier_done. */
static void run_verifier(const struct job *j, const char *dump, const char *report,
                         const char *out, char *const *names, size_t n_names,
                         const volatile sig_atomic_t *cancel, struct run_spec *s,
                         struct run_result *res)
{
    char rtol[32], atol[32];
    char **argv = xcalloc(12 + 2 * n_names, sizeof *argv);
    size_t n = 0;
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
    for (size_t i = 0; i < n_names; i++) {
        argv[n++] = "--case";
        argv[n++] = names[i];
    }
    argv[n] = NULL;
    char *out_path = job_work_file(j, out);
    job_spec_init(j, s, argv, j->o->verify_timeout_s);
    s->stdout_path = s->stderr_path = out_path;
    s->nice = BESIDE_NICE;
    if (cancel)
        s->cancel = cancel;
    /* It compares large outputs on the GPU: untimed work, beside the sanitizers and first
     * looks, never during a time taken alone (gpulock.h). */
    job_run_gpu(j, s, res, GPU_SHARED, 0);
    s->stdout_path = s->stderr_path = NULL;
    free(out_path);
}

static void verifier_done(struct run_spec *s)
{
    free((char **)s->argv);
    s->argv = NULL;
}

/* The verifier's report read into the result's cases; the wrong fact when one failed. */
static int step_verdict(struct job *j, const struct run_spec *s, const struct run_result *res,
                        const char *report)
{
    struct task_result *r = j->r;
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
    int ok = res->end == RUN_EXITED && res->exit_status == LAB_EXIT_PASS && !first_bad && passed > 0;
    if (ok || res->end == RUN_CANCELLED)
        return ok;
    if (first_bad && first_bad->bad > 0 && first_bad->first_mismatch[0])
        job_fact(j, OUTCOME_WRONG, "case %s: %lld of %lld elements wrong, first %s",
                 first_bad->name, first_bad->bad, first_bad->checked, first_bad->first_mismatch);
    else if (first_bad && first_bad->note[0])
        job_fact(j, OUTCOME_WRONG, "case %s: %s", first_bad->name, first_bad->note);
    else if (first_bad)
        job_fact(j, OUTCOME_WRONG, "case %s: %s", first_bad->name,
                 case_status_name(first_bad->status));
    else if (res->end != RUN_EXITED) {
        char how[256];
        run_describe(s, res, how, sizeof how);
        job_fact(j, OUTCOME_WRONG, "the verifier could not check the output: %s", how);
    } else
        job_fact(j, OUTCOME_WRONG, "the verifier rejected the output (exit status %d)",
                 res->exit_status);
    return 0;
}

/* The verdict, from a process that runs no student code. Returns 1 when every case passed. */
int step_verify(struct job *j, const char *dump, const char *report)
{
    struct run_spec s;
    struct run_result res;
    run_verifier(j, dump, report, "verify.out", NULL, 0, NULL, &s, &res);
    int ok = step_verdict(j, &s, &res, report);
    verifier_done(&s);
    return ok;
}

int verify_beside(const struct job *j, const char *dump, const char *report, const char *out,
                  char *const *names, size_t n_names, const volatile sig_atomic_t *cancel,
                  char *why, size_t len)
{
    struct run_spec s;
    struct run_result res;
    run_verifier(j, dump, report, out, names, n_names, cancel, &s, &res);
    if (res.end == RUN_CANCELLED) {
        verifier_done(&s);
        return -1;
    }
    struct tap_report v;
    tap_parse_file(report, &v);
    int ok = 1;
    for (size_t i = 0; i < n_names && ok; i++) {
        const struct tap_case *tc = tap_find(&v, names[i]);
        ok = tc && status_of(tc->status) == CASE_PASS;
        if (!tc)
            snprintf(why, len, "case %s: not verified (the verifier's report has no such case)",
                     names[i]);
        else if (!ok && tc->bad > 0 && tc->first_mismatch[0])
            snprintf(why, len, "case %s: %lld of %lld elements wrong, first %s", names[i], tc->bad,
                     tc->checked, tc->first_mismatch);
        else if (!ok)
            snprintf(why, len, "case %s: %s", names[i], tc->note[0] ? tc->note : tc->status);
    }
    tap_report_free(&v);
    if (ok && (res.end != RUN_EXITED || res.exit_status != LAB_EXIT_PASS)) {
        char how[256];
        run_describe(&s, &res, how, sizeof how);
        snprintf(why, len, "the verifier could not check the output: %s", how);
        ok = 0;
    }
    verifier_done(&s);
    return ok;
}

/* Runs the reference on the speed case, timed with the GPU alone: its times and its floor
 * (the least time any correct run can take on this GPU), each < 0 when its report did not
 * give it. */
static void run_reference(struct job *j, const char *speed_case, struct ref_time *t)
{
    char *report = job_work_file(j, "reference.tap");
    char *out = job_work_file(j, "reference.out");
    char *dump = job_work_file(j, "reference.dump");
    /* --no-check: the reference is trusted, so its CPU check would only cost time; --dump:
     * its timed calls keep and hash their outputs as the exercise's do, so that the grader's
     * clock over its window (witness.h) counts the same harness work; the grader picks no
     * repetition, so nothing is written there */
    char *argv[] = {j->sol_bin, "--seed",   j->seed_arg, "--case", (char *)speed_case,
                    "--no-check", "--report", report,    "--dump", dump, NULL};
    if (j->o->no_witness)
        argv[8] = NULL;
    struct run_spec s;
    job_spec_init(j, &s, argv, j->o->verify_timeout_s);
    s.stdout_path = s.stderr_path = out;
    struct run_result res;
    struct gate_witness w = {0};
    job_witness_init(j, &w, 0);
    job_run_witnessed(j, &s, &res, GPU_ALONE, &w);
    t->witness_s = res.end == RUN_EXITED && w.committed ? gate_witness_s(&w) : -1;
    t->calls = t->witness_s > 0 ? (int)(w.warmup + w.reps) : 0;
    gate_witness_free(&w);
    remove_tree(dump);
    free(dump);
    /* from its gate to its timed calls' end (runner.h), or its whole run when it had no gate */
    t->turn_s = res.end != RUN_EXITED ? -1
                : !res.gate_passed    ? res.wall_s
                : res.done_s > 0      ? res.done_s - res.ready_s
                                      : res.wall_s - res.gate_wait_s - res.ready_s;
    struct tap_report ref;
    tap_parse_file(report, &ref);
    const struct tap_case *tc = tap_find(&ref, speed_case);
    t->ms = tc ? tc->time_ms : -1;
    t->min_ms = tc ? tc->time_min_ms : -1;
    t->max_ms = tc ? tc->time_max_ms : -1;
    t->floor_ms = tc ? tc->floor_ms : -1;
    tap_report_free(&ref);
    free(report);
    free(out);
}

/* A measurement from the class's cache that may still serve this grading: 1, and *t filled. */
static int take_shared(struct job *j, const char *key, struct ref_time *t)
{
    const struct grade_opts *o = j->o;
    if (refcache_take(o->ref_cache, key, o->ref_max_age_s, o->ref_max_uses, t) != 1)
        return 0;
    /* a measurement without the witness's window cannot confirm a time: measured again */
    if (!o->no_witness && (t->witness_s <= 0 || t->calls <= 0))
        return 0;
    j->r->ref_shared = 1;
    j->r->ref_age_s = refcache_age_s(t);
    return 1;
}

/* The right to measure key's reference (gpulock.h: gpu_measure_take), its wait accounted as
 * one for the GPU alone; a descriptor to close, or -1. */
static int measure_right(struct job *j, const char *key)
{
    double t0 = now_s();
    int fd = gpu_measure_take(j->o->gpu_lock, key, j->o->cancel);
    job_gpu_account(j, GPU_ALONE, now_s() - t0, 0);
    return fd;
}

/* The reference's time for this grading: with a class's cache (refcache.h), a measurement
 * an earlier grading on this GPU made while it may still serve, else a fresh one (shared in
 * turn). The cache is an economy, never a verdict: when it fails, the reference is timed.
 * fresh: not from the cache; a time this grading took itself within REF_OWN_REUSE_S serves,
 * else it is timed now (and the new time is the class's from then on). 1 when the time is
 * one taken before this step (the cache's, or this grading's own), 0 when it was taken now. */
static int reference_time(struct job *j, const char *speed_case, struct ref_time *t, int fresh)
{
    const struct grade_opts *o = j->o;
    char *key = o->ref_cache ? job_ref_key(j, speed_case) : NULL;
    if (key && !fresh && take_shared(j, key, t)) {
        free(key);
        return 1;
    }
    /* A second look wants a time taken alone now: this grading's own, measured alone moments
     * ago, is one (in a batch the reference was timed just before the second look asked). */
    if (fresh && j->ref_own_s > 0 && now_s() - j->ref_own_s <= REF_OWN_REUSE_S) {
        *t = j->ref_own;
        free(key);
        return 1;
    }
    /* Gradings that reach this step together all miss: the first to hold the right to measure
     * times the reference, and the others, once they hold it, find that measurement and share
     * it. The GPU is the reference's alone from its gate to its timed calls' end only: its
     * start and its end share it, as a first look's do. */
    int measure = key ? measure_right(j, key) : -1;
    if (measure < 0 || fresh || !take_shared(j, key, t)) {
        run_reference(j, speed_case, t);
        if (key && t->ms > 0)
            refcache_put(o->ref_cache, key, t);
        if (t->ms > 0) {
            j->ref_own = *t;
            j->ref_own_s = now_s();
        }
    }
    if (measure >= 0)
        close(measure);
    free(key);
    return 0;
}

void step_reference_ahead(struct job *j)
{
    const struct grade_opts *o = j->o;
    const struct case_result *sc = job_flagged_case(j->r, task_speed_case(j->t), CASE_FLAG_SPEED);
    if (!o->ref_cache || !sc || job_cancelled(j))
        return;
    char *key = job_ref_key(j, sc->name);
    struct ref_time t;
    if (refcache_peek(o->ref_cache, key, &t) != 1) {
        int measure = measure_right(j, key);
        if (!job_cancelled(j) && refcache_peek(o->ref_cache, key, &t) != 1) {
            run_reference(j, sc->name, &t);
            if (t.ms > 0)
                refcache_put(o->ref_cache, key, &t);
        }
        if (measure >= 0)
            close(measure);
    }
    free(key);
}

int witness_dump_checked(struct job *j)
{
    const struct case_result *sc = job_flagged_case(j->r, task_speed_case(j->t), CASE_FLAG_SPEED);
    if (j->o->no_witness || !sc)
        return 1;
    char why[400];
    if (witness_check_dump(j->dump, sc->name, &j->run_witness, why, sizeof why) == 0)
        return 1;
    job_fact(j, OUTCOME_IMPLAUSIBLE, "the time is not the grader's to believe: %s", why);
    return 0;
}

/* The exercise's reported time against the grader's clock over its window (witness.h). A
 * first look's doubt asks for a second look (grade.c); a later look's is judged only against
 * a window of the reference's taken right after it, and a second look's doubt that holds
 * there asks for a third, whose doubt is the verdict. Both windows hold the
 * harness's host work for every call, which a host busy with other work stretches: on one
 * H200, beside a test run's sixteen compilers, an honest solution's second look came out
 * 10-160 ms a call longer than the reference's window of a minute before. A window of the
 * reference's taken now is stretched alike, while a forger's processes, which could stretch
 * it, have ended. */
static void witness_speed(struct job *j, const char *case_name, double student_ms,
                          const struct ref_time *rt)
{
    struct task_result *r = j->r;
    const struct gate_witness *w = &j->run_witness;
    struct witness_in in = {
        .w_s = gate_witness_s(w), .w_ref_s = rt->witness_s,
        .calls = (int)(w->warmup + w->reps), .calls_ref = rt->calls,
        .ref_ms = rt->ms, .student_ms = student_ms, .threshold = r->speed_threshold,
    };
    struct witness_out out;
    enum witness_verdict v = witness_confirm(&in, &out);
    r->witness_ms = v == WITNESS_UNKNOWN && out.t_conf_ms <= 0 ? -1 : out.t_conf_ms;
    if (v != WITNESS_DOUBTED)
        return;
    if (r->speed_first_ratio < 0 && !j->witness_doubt) {
        j->witness_doubt = 1;
        return;
    }
    struct ref_time now;
    run_reference(j, case_name, &now);
    if (now.ms > 0 && now.witness_s > 0 && now.calls > 0) {
        in.w_ref_s = now.witness_s;
        in.calls_ref = now.calls;
        in.ref_ms = now.ms;
        v = witness_confirm(&in, &out);
        r->witness_ms = out.t_conf_ms > 0 ? out.t_conf_ms : -1;
        if (v != WITNESS_DOUBTED)
            return;
    }
    if (!j->last_look) { /* a third look decides (grade.c) */
        j->witness_doubt = 1;
        return;
    }
    job_fact(j, OUTCOME_IMPLAUSIBLE, "case %s: the time is not the grader's clock's: %s",
             case_name, out.why);
}

/* Times the reference on the speed case and records what the times say: a time below the
 * GPU's floor is implausible, a ratio below the threshold too slow; a reference that gave no
 * time is the grader's own failure (never a waived check). */
int step_speed(struct job *j)
{
    struct task_result *r = j->r;
    const struct case_result *sc = job_flagged_case(r, task_speed_case(j->t), CASE_FLAG_SPEED);
    r->speed_threshold = task_speed_threshold(j->t);
    if (!sc)
        return 1;
    set_str(&r->speed_case, sc->name);
    struct case_result *c = result_find_case(r, sc->name);
    struct ref_time rt;
    /* A second look (grade.c) takes no time from the cache: a shared time was taken under
     * other conditions than this run (the class's load on the CPU, the clocks), and too slow
     * is only ever decided against a time taken now, by this grading. */
    r->ref_shared = 0; /* a first look's shared time is not the second look's */
    r->ref_age_s = 0;
    int before = reference_time(j, sc->name, &rt, r->speed_first_ratio >= 0);
    /* A second look too slow against the time this grading took of the reference before it
     * is judged against the slower of that time and one taken right after it. The second look
     * has its GPU alone, but not the host: on an H200 x4 host grading on all four GPUs, lesson
     * 08's reference (page migration, which the host's CPUs and driver serve) took 29.7-33.2
     * ms against 24.6 on one GPU, and a copy of the solution came out too slow. Load that
     * slowed the second look slows a run right after it too; the student's processes have
     * ended by then. */
    if (before && r->speed_first_ratio >= 0 && rt.ms > 0 && c->time_ms > 0 &&
        rt.ms / c->time_ms < r->speed_threshold) {
        struct ref_time after;
        run_reference(j, sc->name, &after);
        if (after.ms > rt.ms)
            rt = after;
    }
    double ref_ms = rt.ms, floor_ms = rt.floor_ms;
    r->ref_min_ms = rt.min_ms;
    r->ref_max_ms = rt.max_ms;
    c->ref_time_ms = ref_ms;
    r->time_ms = c->time_ms;
    r->ref_time_ms = ref_ms;
    if (floor_ms > 0 && c->time_ms >= 0 && c->time_ms < floor_ms)
        job_fact(j, OUTCOME_IMPLAUSIBLE, "%.3g ms is faster than this GPU can do the work "
                 "(floor %.3g ms)", c->time_ms, floor_ms);
    if (c->time_ms <= 0) {
        if (r->speed_threshold > 0)
            job_fact(j, OUTCOME_TOO_SLOW, "case %s: the exercise reported no time", sc->name);
        return facts_none(&j->facts);
    }
    if (ref_ms <= 0) {
        if (!job_cancelled(j))
            job_fact(j, OUTCOME_NOT_RUN, "grader error: the reference gave no time for %s",
                     sc->name);
        return 0;
    }
    r->speed_measured = 1;
    r->speed_ratio = ref_ms / c->time_ms;
    if (!j->o->no_witness)
        witness_speed(j, sc->name, c->time_ms, &rt);
    char first[64] = "", ratio[24];
    if (r->speed_first_ratio >= 0)
        snprintf(first, sizeof first, "; the first run's ratio %s",
                 ratio_text(r->speed_first_ratio, ratio, sizeof ratio));
    if (r->speed_ratio < r->speed_threshold)
        job_fact(j, OUTCOME_TOO_SLOW,
                 "case %s: %.3g ms against the reference's %.3g ms (ratio %s, needs %.2f%s)",
                 sc->name, c->time_ms, ref_ms, ratio_text(r->speed_ratio, ratio, sizeof ratio),
                 r->speed_threshold, first);
    return facts_none(&j->facts);
}

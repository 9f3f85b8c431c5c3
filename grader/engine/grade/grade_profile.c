/* grade_profile.c — the profile's collection (grade_steps.h step_profile): the exercise's speed
 * case under ncu, run as the speed's cross-check runs it (grade_ncu.c: in the sandbox, its
 * bounds, the GPU alone), and the reference's, trusted and unsandboxed as its timed run is.
 * Which counters is the caller's (grade_opts.profile_args); reading them is grader/profile/'s.
 * Nothing here is a verdict.
 *
 * One call each (--warmup 0 --reps 1), both with --dump: every kernel profiled belongs to
 * that call, so the kernels' figures are a call's, and the two sides' runs are alike (the
 * reference's --no-check run would measure the GPU's ceilings after its call, kernels that
 * are not the task's). The dumps are not verified (this run decides nothing) and are removed.
 *
 * One or two runs a side. ncu replays a kernel as often as its counters need (with the caches
 * flushed and the clocks at base before each pass, so that both sides are measured alike),
 * which made a call of 16 launches cost 26 s on the H200. So the counters are read for the
 * first two launches of each kernel and launch shape only (--filter-mode per-launch-config
 * --launch-count 2). Where a shape was launched twice, or the harness's time of a call is far
 * above the replayed launches' (needs_times), a second run times every launch in one
 * pass of its own, and grader/profile gives each launch its own time and the counters of its
 * shape's first. Elsewhere every launch was replayed once, and that is its time: a second run
 * would cost the GPU alone again for ncu's setup (0.7 s of its 0.7-0.8 s turn on the H200) and
 * add nothing (11 of the 13 reference solutions; their launches timed within 3.1 % of the
 * replay).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpulock.h"
#include "grade_job.h"
#include "grade_ncu.h"
#include "grade_steps.h"
#include "hash.h"
#include "ncu_csv.h"
#include "objcheck.h"

/* The launches of each kernel and shape whose counters are read: the first two, so that a
 * shape launched twice shows (needs_times). */
#define COUNTED_LAUNCHES 2
#define AS_STRING(x) #x
#define NUMBER_STRING(x) AS_STRING(x)

/* The runs of a side (grade_profile.c's head): the counters (times 0) and, where needed,
 * every launch's time (1). */
static const char *const counter_args[] = {"--filter-mode", "per-launch-config", "--launch-count",
                                           NUMBER_STRING(COUNTED_LAUNCHES), NULL};
static const char *const time_args[] = {"--metrics", "gpu__time_duration.sum", NULL};

/* ncu's log of one side's run (malloc'd, NULL when none); how it ended, when not by itself. */
static char *profile_run(struct job *j, const char *tool, int reference, int times, char *how,
                         size_t howlen)
{
    const char *side = reference ? (times ? "profile-ref-times" : "profile-ref")
                                 : (times ? "profile-times" : "profile");
    char *log = xasprintf("%s/%s.csv", reference ? j->work : j->scratch, side);
    char *dump = xasprintf("%s/%s.dump", reference ? j->work : j->scratch, side);
    char *tap = xasprintf("%s/%s.tap", reference ? j->work : j->scratch, side);
    char *outname = xasprintf("%s.out", side), *out = job_work_file(j, outname);
    mkdir(dump, 0700);
    const char *argv[64];
    size_t n = 0;
    /* The harness's kernels (its device probe, inputs drawn, outputs hashed: namespace lab,
     * which a student's kernel may not use, objcheck.c) are not profiled: each would cost as
     * many replays as one of the task's, a third to half of a digest's time on the H200. ncu
     * matches the regular expression against the mangled name, which for lab:: starts
     * _ZN3lab. */
    const char *head[] = {tool, "--csv", "--page", "raw", "--print-units", "base",
                          "--kernel-name-base", "mangled", "--kernel-name", "regex:^(?!_ZN3lab)"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        argv[n++] = head[i];
    for (const char *const *a = times ? time_args : counter_args; *a; a++)
        argv[n++] = *a;
    for (const char *const *a = times ? NULL : j->o->profile_args;
         a && *a && n + 24 < sizeof argv / sizeof *argv; a++)
        argv[n++] = *a;
    const char *tail[] = {"--log-file", log, reference ? j->sol_bin : j->ex_bin,
                          "--seed", j->seed_arg, "--case", j->r->speed_case,
                          "--warmup", "0", "--reps", "1", "--report", tap, "--dump", dump};
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
        argv[n++] = tail[i];
    argv[n] = NULL;
    char *text = ncu_logged_run(j, (char *const *)argv, !reference, log, out, GPU_ALONE, how,
                                howlen);
    remove_tree(dump);
    free(log);
    free(dump);
    free(tap);
    free(outname);
    free(out);
    return text;
}

/* The reference's side does not depend on the student: its ncu log is kept under the
 * course's build, named by the task, the speed case, the host and GPU, the reference binary's
 * hash and the counters asked for, and serves every later profile of that task there (the
 * inputs' seed aside: the reference's counters do not move with it). NULL when none. */
static char *ref_profile_cache(const struct job *j)
{
    if (!j->sol_hash[0] || !j->r->speed_case)
        return NULL;
    char host[128] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    struct strbuf args = {0};
    for (const char *const *a = j->o->profile_args; *a; a++)
        sb_printf(&args, "%s\n", *a);
    for (const char *const *a = counter_args; *a; a++) /* a log of other launches is another */
        sb_printf(&args, "%s\n", *a);
    char args_hex[HASH_HEX_LEN + 1];
    hash_sha256_hex(args.s ? args.s : "", args.len, args_hex);
    free(args.s);
    char *name = xasprintf("%s__%s__%s__%s-gpu%d__%.16s%.8s.csv", lesson_id(task_lesson(j->t)),
                           task_name(j->t), j->r->speed_case, host, j->o->gpu, j->sol_hash,
                           args_hex);
    for (char *c = name; *c; c++) /* one file name, whatever a case is called */
        if (*c == '/')
            *c = '_';
    char *path = xasprintf("%s/grader/profile-ref/%s", j->build_abs, name);
    free(name);
    return path;
}

/* A call's time beyond its replayed launches that only a run timing every launch explains
 * (copies, page faults, waits): more than this factor of them and this many ms over. */
#define CALL_UNSEEN_FACTOR 2.0
#define CALL_UNSEEN_MS 0.1

/* Whether a side needs the run that times every launch, from its counters' log (ncu replayed
 * the first two launches of each kernel and launch shape): when some kernel and shape was
 * launched twice (each launch then needs a time of its own), when the harness's time of a
 * call, call_ms (<= 0 or NaN: unknown), is more than CALL_UNSEEN_FACTOR times the replayed
 * launches' and CALL_UNSEEN_MS over, and when the log has no table or no kernel of the
 * program's (the run then says what it can). Else every launch of the call was replayed once,
 * and its replayed time is its time. */
static int needs_times(const char *text, double call_ms)
{
    struct ncu_table t;
    char err[256];
    if (!text || ncu_table_read(text, &t, err, sizeof err) != 0)
        return 1;
    int name = ncu_table_col(&t, "Kernel Name"), again = 0, own = 0;
    double replayed_ms = 0;
    for (size_t i = 0; i < t.n_rows && !again; i++) {
        const char *kernel = ncu_table_cell(&t, i, name);
        if (objcheck_harness_name(kernel))
            continue;
        own++;
        double ms = ncu_table_time_ms(&t, i);
        replayed_ms += ms > 0 ? ms : 0;
        for (size_t k = i + 1; k < t.n_rows && !again; k++)
            again = ncu_table_same_launch(&t, i, &t, k);
    }
    ncu_table_free(&t);
    return again || !own || name < 0 ||
           call_ms > CALL_UNSEEN_FACTOR * replayed_ms + CALL_UNSEEN_MS;
}

/* Whether both of the reference's logs are kept at cache (its counters' path; the times' is
 * empty where the side needed no such run). */
static int ref_cached(const char *cache)
{
    char *times = xasprintf("%s.times", cache);
    int both = is_file(cache) && is_file(times);
    free(times);
    return both;
}

/* One side's logs, into text[0] (the counters) and text[1] (the times, NULL when the side
 * needs none: needs_times): the cache's for the reference where it has them (cache:
 * its counters' file; the times' is cache.times, empty for none), else ncu's, kept there for
 * the next grading. Why ncu failed goes to the result. */
static void profile_side(struct job *j, const char *tool, int reference, const char *cache,
                         char *text[2])
{
    struct task_result *r = j->r;
    for (int times = 0; times < 2 && !job_cancelled(j); times++) {
        char how[256] = "";
        char *path = cache ? xasprintf("%s%s", cache, times ? ".times" : "") : NULL;
        text[times] = path ? read_text_file(path, 64u << 20) : NULL;
        if (times && text[times] && !text[times][0]) { /* kept: none needed */
            free(text[times]);
            text[times] = NULL;
            free(path);
            break;
        }
        if (times && !text[times] &&
            !needs_times(text[0], reference ? result_ref_time_ms(r) : result_time_ms(r))) {
            if (path && is_file(cache)) /* beside the counters it was decided from */
                write_atomic(path, "", 0);
            free(path);
            break;
        }
        if (!text[times]) {
            text[times] = profile_run(j, tool, reference, times, how, sizeof how);
            if (path && text[times] && !how[0]) {
                char *dir = xstrdup(path);
                *strrchr(dir, '/') = '\0';
                if (mkdir_p(dir) == 0)
                    write_atomic(path, text[times], strlen(text[times]));
                free(dir);
            }
        }
        free(path);
        if (how[0] && !r->profile_why) {
            char *why = xasprintf("ncu %s (%s)", how, reference ? "the reference" : "your program");
            set_str(&r->profile_why, why);
            free(why);
        }
    }
}

void step_profile(struct job *j)
{
    struct task_result *r = j->r;
    job_progress(j, GRADE_STEP_PROFILE, "under ncu");
    char *tool = ncu_tool(j, 0);
    if (!tool) {
        set_str(&r->profile_why, j->o->ncu ? "ncu: the path given is not an executable"
                                           : "ncu not found (PATH, CUDA_HOME/bin, "
                                             "/usr/local/cuda/bin)");
        return;
    }
    j->ncu_looked = 1; /* its view is in the sandbox now */
    char *cache = ref_profile_cache(j);
    for (int side = 0; side < 2 && !job_cancelled(j); side++) {
        char *text[2] = {NULL, NULL};
        /* Gradings that miss the reference's logs together take turns (as for its time,
         * grade_check.c): the first profiles it, the others read what it kept. */
        int measure = -1;
        if (side && cache && !ref_cached(cache)) {
            char hex[HASH_HEX_LEN + 1], key[32];
            hash_sha256_hex(cache, strlen(cache), hex);
            snprintf(key, sizeof key, "profile-%.16s", hex);
            measure = gpu_measure_take(j->o->gpu_lock, key, j->o->cancel);
        }
        profile_side(j, tool, side, side ? cache : NULL, text);
        if (measure >= 0)
            close(measure);
        free(r->profile_text[side]);
        free(r->profile_times[side]);
        r->profile_text[side] = text[0];
        r->profile_times[side] = text[1];
    }
    free(cache);
    free(tool);
}

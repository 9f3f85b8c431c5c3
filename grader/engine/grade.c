/* grade.c — one task through the protocol of grade.h. */
#include "grade.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "grade_job.h"
#include "owntree.h"
#include "hash.h"
#include "refcache.h"
#include "sandbox.h"
#include "tap.h"

#define FLOOD_BYTES ((size_t)64 << 20)
#define DUMP_FILE_BYTES (1ull << 30)
#define SCRATCH_BYTES (4ull << 30)
#define STUDENT_MAX_PROCS 32

static const char *const step_names[GRADE_STEP_COUNT] = {
    "building", "checking symbols", "listing cases", "running", "verifying",
    "timing the reference", "sanitizing", "profiling", "Slurm", "done",
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
    o->ncu_share = 0.1;
    o->ncu_timeout_s = 300;
    o->gpu = -1;
    o->sanitize = 1;
    o->build = 1;
    o->ref_max_age_s = 300;
    o->ref_max_uses = 20;
    o->output_cap_bytes = (size_t)1 << 20;
    o->make = "make";
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    o->mem_limit_bytes = pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page / 2 : 0;
}

/* ======================================================================= one grading */

char *job_work_file(const struct job *j, const char *name)
{
    return path_join(j->work, name);
}

/* *field with every "<exercises_abs>/" made "exercises/". */
static void show_exercises_in(const char *dir, size_t len, char **field)
{
    if (!*field || !strstr(*field, dir))
        return;
    size_t n = 0;
    for (const char *p = strstr(*field, dir); p; p = strstr(p + len, dir))
        n++;
    char *out = xcalloc(strlen(*field) + n * strlen("exercises/") + 1, 1), *o = out;
    for (const char *p = *field; *p;) {
        if (strncmp(p, dir, len) == 0) {
            o = stpcpy(o, "exercises/");
            p += len;
        } else {
            *o++ = *p++;
        }
    }
    free(*field);
    *field = out;
}

void job_show_exercises(const struct job *j, size_t diags_from, size_t findings_from)
{
    char *dir = xasprintf("%s/", j->exercises_abs);
    size_t len = strlen(dir);
    struct task_result *r = j->r;
    for (size_t i = diags_from; i < r->n_diags; i++) {
        show_exercises_in(dir, len, &r->diags[i].file);
        show_exercises_in(dir, len, &r->diags[i].text);
    }
    for (size_t i = findings_from; i < r->n_findings; i++) {
        show_exercises_in(dir, len, &r->findings[i].file);
        show_exercises_in(dir, len, &r->findings[i].text);
    }
    free(dir);
}

void job_fact(struct job *j, enum grader_outcome o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fact_vrecord(&j->facts, o, fmt, ap);
    va_end(ap);
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

void job_progress(const struct job *j, enum grade_step s, const char *detail)
{
    if (j->o->progress)
        j->o->progress(j->o->progress_user, j->t, s, detail);
}

int job_cancelled(const struct job *j)
{
    return j->o->cancel && *j->o->cancel;
}

void job_spec_init(const struct job *j, struct run_spec *s, char *const *argv, double wall)
{
    memset(s, 0, sizeof *s);
    s->argv = argv;
    s->cwd = j->work;
    s->env = j->env;
    s->wall_s = wall;
    /* CPU time, a backstop behind the wall clock: the harness draws inputs and checks on every
     * core, so a bound of a few walls (it was 4) killed honest runs with SIGKILL on a
     * 16-core host before their wall time was up. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    s->cpu_s = (cores > 4 ? cores : 4) * wall + 10;
    s->output_cap = j->o->output_cap_bytes;
    s->flood_bytes = FLOOD_BYTES;
    s->file_bytes = DUMP_FILE_BYTES;
    s->open_files = 256;
    s->nproc_margin = 256;
    s->max_procs = STUDENT_MAX_PROCS;
    s->data_bytes = j->mem_limit;
    s->cancel = j->o->cancel;
}

/* Student code: the build of the exercise, its runs, the sanitizers over it. */
void job_spec_student(struct job *j, struct run_spec *s, char *const *argv, double wall)
{
    job_spec_init(j, s, argv, wall);
    s->cwd = j->scratch;
    s->sandbox = j->o->no_sandbox ? NULL : &j->sb;
    s->disk_dir = j->scratch;
    s->disk_bytes = SCRATCH_BYTES;
}

/* The sanitizer's runs of one grading account from their own threads. */
static pthread_mutex_t gpu_account_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set on a thread that runs beside the grading's own (a sanitizer's): its waits overlap the
 * grading's work, so they are not the grading's wait (result_wait_s). */
static _Thread_local int beside_thread;

int job_beside_thread(int beside)
{
    int was = beside_thread;
    beside_thread = beside;
    return was;
}

void job_gpu_account(const struct job *j, enum gpu_use use, double wait_s, double held_s)
{
    pthread_mutex_lock(&gpu_account_lock);
    j->r->gpu_wait_s += wait_s;
    if (!beside_thread)
        j->r->wait_s += wait_s;
    if (use != GPU_SHARED)
        j->r->gpu_timed_s += held_s;
    else
        j->r->gpu_shared_s += held_s;
    pthread_mutex_unlock(&gpu_account_lock);
}

/* A timed run through the gate: it starts holding the GPU shared, as compute-sanitizer's runs
 * do, and at the gate takes its turn (GPU_TIMED, GPU_ALONE); when its timed calls are over it
 * hands the turn on (or shares the GPU it had alone) and holds it shared until it ends. Its
 * start (the process, the sandbox, the device's opening: a quarter of a second) and its end
 * (the report, the context's teardown) then overlap the sanitizers and other runs' starts and
 * ends, but never a run's time alone: on the H200 a call of 30 microseconds timed beside
 * loops of device opens took a third longer. */
struct gate_turn {
    const struct job *j;
    enum gpu_use use;
    struct gpu_hold hold;
    double turn_at, done_at; /* when the turn was taken and handed on (monotonic s), 0 before */
};

static void take_turn(void *arg)
{
    struct gate_turn *t = arg;
    /* grade_many's times, started early, wait here for every task's first look and checks */
    if (t->j->turn_wait)
        t->j->turn_wait(t->j->turn_ctx);
    gpu_hold_turn(&t->hold, t->j->o->gpu_lock, t->use);
    t->turn_at = now_s();
}

static void end_turn(void *arg)
{
    struct gate_turn *t = arg;
    t->done_at = now_s();
    gpu_hold_end_turn(&t->hold, t->use);
}

static const char *const use_names[] = {"shared", "timed", "alone"};

/* With GRADER_GPU_TRACE naming a file, one line per run that used the GPU is appended to it:
 *   <pid> <task> <program> <use> <asked> <from> <turn> <turn end> <end>
 * times of the monotonic clock in seconds: it asked for the GPU at <asked>, held it from
 * <from> to <end>, and had its turn (use timed or alone) from <turn> to <turn end> ("-" for a
 * run that had none); outside its turn it held the GPU shared. tests/class/bench_class.sh
 * reads it to tell the time the GPU was held alone, by a timed run, only shared, or not at
 * all. Lines are written whole with O_APPEND, so the gradings of a class share one file. */
static void gpu_trace(const struct job *j, const struct run_spec *s, enum gpu_use use,
                      double asked, double from, double turn, double turn_end, double end)
{
    const char *path = getenv("GRADER_GPU_TRACE");
    if (!path || !*path)
        return;
    const char *prog = s->argv && s->argv[0] ? s->argv[0] : "?";
    const char *base = strrchr(prog, '/');
    char turn_at[64] = "- -";
    if (turn > 0)
        snprintf(turn_at, sizeof turn_at, "%.6f %.6f", turn, turn_end);
    char line[512];
    int n = snprintf(line, sizeof line, "%ld %s %s %s %.6f %.6f %s %.6f\n", (long)getpid(),
                     task_name(j->t), base ? base + 1 : prog, use_names[use], asked, from,
                     turn_at, end);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n) {
        /* a measurement aid: a short write loses a line, never the grading */
    }
    close(fd);
}

/* A run that used the GPU without its lock (none given, or one that could not be taken) is
 * said so in the result: its times may have been taken beside another grading's. */
static void note_unlocked(const struct job *j, const struct gpu_hold *h, enum gpu_use use)
{
    if (!j->o->gpu_lock || (use != GPU_SHARED && !gpu_hold_held(h))) {
        pthread_mutex_lock(&gpu_account_lock);
        j->r->gpu_unlocked = 1;
        pthread_mutex_unlock(&gpu_account_lock);
    }
}

void job_witness_init(const struct job *j, struct gate_witness *w, int picks)
{
    gate_witness_free(w);
    memset(w, 0, sizeof *w);
    w->picks_wanted = picks;
    if (j->o->no_witness)
        return;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &w->key, sizeof w->key) != (ssize_t)sizeof w->key)
        w->key = ((uint64_t)time(NULL) << 20) ^ (uint64_t)(now_s() * 1e9) ^ (uint64_t)getpid();
    if (fd >= 0)
        close(fd);
    if (!w->key)
        w->key = 1; /* 0 asks for no commitment */
}

void job_run_gpu(const struct job *j, const struct run_spec *s, struct run_result *res,
                 enum gpu_use use, int gated)
{
    struct gate_witness w = {0};
    if (gated)
        job_witness_init(j, &w, LAB_GATE_PICKS);
    w.key = 0; /* untimed by the witness: no commitment asked for */
    job_run_witnessed(j, s, res, use, gated ? &w : NULL);
    gate_witness_free(&w);
}

void job_run_witnessed(const struct job *j, const struct run_spec *s, struct run_result *res,
                       enum gpu_use use, struct gate_witness *w)
{
    const int gated = w != NULL;
    double t0 = now_s();
    struct gpu_hold hold = gpu_hold_take(j->o->gpu_lock, gated ? GPU_SHARED : use);
    double waited = now_s() - t0, from = t0 + waited;
    if (gated && use != GPU_SHARED) {
        struct gate_turn turn = {j, use, hold, 0, 0};
        struct run_gate gate = {take_turn, end_turn, &turn, w};
        struct run_spec g = *s;
        g.gate = &gate;
        run_sandboxed(&g, res);
        double end = now_s(); /* before the drop, as the turn's start after the take: the
                                 trace never shows two turns at once that were not */
        if (res->gate_passed)
            note_unlocked(j, &turn.hold, use);
        gpu_hold_drop(&turn.hold);
        /* the turn: from the gate's opening to done, or to the end */
        double turn_at = res->gate_passed ? turn.turn_at : -1;
        double turn_end = turn.done_at > 0 ? turn.done_at : end;
        double in_turn = turn_at > 0 ? turn_end - turn_at : 0;
        job_gpu_account(j, GPU_SHARED, waited + res->gate_wait_s,
                        res->wall_s - res->gate_wait_s - in_turn);
        job_gpu_account(j, use, 0, in_turn);
        gpu_trace(j, s, use, t0, from, turn_at, turn_end, end);
        return;
    }
    run_sandboxed(s, res);
    double end = now_s();
    note_unlocked(j, &hold, use);
    gpu_hold_drop(&hold);
    job_gpu_account(j, use, waited, res->wall_s);
    gpu_trace(j, s, use, t0, from, use == GPU_SHARED ? -1 : from, end, end);
}

/* First line of a file that satisfies pred (or the first non-empty line), malloc'd; "" if none. */
static char *first_line(const char *path, const char *must_contain)
{
    char *text = read_text_file(path, 1 << 16);
    char *found = NULL, *fallback = NULL;
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
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

/* The skip fact from the exercise's own SKIP line (grade_job.h). */
void job_record_skip(struct job *j)
{
    struct task_result *r = j->r;
    char *line = first_line(r->stdout_path, "SKIP");
    if (!strstr(line, "SKIP")) {
        free(line);
        line = first_line(r->stderr_path, "SKIP");
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

/* ======================================================================= steps */
static int step_list(struct job *j)
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

/* How long the exercise may hold its turn at the GPU: TURN_FACTOR times the reference's own
 * run past its gate, when the class's cache (refcache.h) has one, and no less than
 * TURN_MIN_S; else 0 (the run's wall-clock limit alone). While a timed run holds its turn no
 * other is timed: a kernel that never ends held every grading of a class back for the whole
 * limit (60 s, or 20 s in the class bench), where the reference's run takes under 2 s on the
 * H200. A run this far past the reference fails the task whatever it would have printed. */
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
static int step_run(struct job *j, const char *dump, const char *report)
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
    s.stdout_path = r->stdout_path;
    s.stderr_path = r->stderr_path;
    s.turn_s = turn_bound(j);
    struct run_result res;
    /* the second look decides: it has the GPU alone; the witness's key is drawn anew */
    job_witness_init(j, &j->run_witness, LAB_GATE_PICKS);
    job_run_witnessed(j, &s, &res, r->speed_first_ratio >= 0 ? GPU_ALONE : GPU_TIMED,
                      &j->run_witness);
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
        char *line = first_line(r->stderr_path, ": ");
        job_fact(j, OUTCOME_CUDA_ERROR, "%s", line[0] ? line : "CUDA error (exit status 3)");
        free(line);
        return 1;
    }
    job_fact(j, OUTCOME_CRASHED, "%s%s", how, res.exit_status == LAB_EXIT_USAGE ? " (usage error)" : "");
    return 1;
}

/* ======================================================================= driver */
void job_init(struct job *j, const struct task *t, const struct grade_opts *o)
{
    memset(j, 0, sizeof *j);
    j->t = t;
    j->o = o;
    j->r = result_new();
    j->root = o->root ? o->root : course_root(task_lesson(t)->course);
    const char *lid = lesson_id(task_lesson(t));
    j->build_abs = path_join(j->root, o->build_dir ? o->build_dir : "build");
    j->exbuild_abs = o->exbuild_dir ? path_join(j->root, o->exbuild_dir) : xstrdup(j->build_abs);
    j->exercises_abs = o->exercises_dir ? path_join(j->root, o->exercises_dir)
                                        : xasprintf("%s/exercises", j->root);
    j->work = o->work_dir ? xasprintf("%s/%s/%s", o->work_dir, lid, task_name(t))
                          : xasprintf("%s/grader/%s/%s", j->exbuild_abs, lid, task_name(t));
    j->scratch = xasprintf("%s/scratch", j->work);
    /* Built here, the student's binary goes to the scratch; --no-build: where make put it. */
    const char *exb = o->build ? j->scratch : j->exbuild_abs;
    j->ex_bin = xasprintf("%s/exercises/%s/%s", exb, lid, task_name(t));
    j->ex_target = xstrdup(j->ex_bin);
    j->ex_obj = xasprintf("%s/obj/exercises/%s/%s.o", exb, lid, task_name(t));
    j->sol_bin = xasprintf("%s/solutions/%s/%s", j->build_abs, lid, task_name(t));
    const char *bd = o->build_dir ? o->build_dir : "build";
    j->sol_target = xasprintf("%s/solutions/%s/%s", bd, lid, task_name(t));
    j->ex_src = xasprintf("%s/%s/%s.cu", j->exercises_abs, lid, task_name(t));
    j->r->seed = o->seed_set ? o->seed : fresh_seed();
    j->seed_arg = xasprintf("%llu", (unsigned long long)j->r->seed);
    /* Every process that opens the GPU creates a context with its hardware work queues (CUDA's
     * default: 8), and the driver creates contexts one at a time: 20 programs started together
     * on the H200 opened their devices in 4.0 s by default, in 1.5 s with one queue, and a
     * grading starts about 55 of them. One queue serves every task whose calls are one
     * stream's work; a task whose streams must overlap says how many it needs (lesson.ini
     * work_queues), and its student and its reference are timed alike. The sanitizers time
     * nothing: one queue. */
    size_t e = 0;
    if (o->gpu >= 0) {
        j->env_gpu = xasprintf("CUDA_VISIBLE_DEVICES=%d", o->gpu);
        j->env[e] = j->san_env[e] = j->env_gpu;
        e++;
    }
    j->env_queues = xasprintf("CUDA_DEVICE_MAX_CONNECTIONS=%d", task_work_queues(t));
    j->env[e] = j->env_queues;
    j->san_env[e] = "CUDA_DEVICE_MAX_CONNECTIONS=1";
    j->mem_limit = o->mem_limit_bytes;
    j->r->max_score = task_weight(t);
    j->r->speed_threshold = task_speed_threshold(t);
    j->r->graded_at = (int64_t)time(NULL);
    j->ncu_draw = -1;
}

void job_free(struct job *j)
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
    free(j->scratch);
    free(j->bin_dir);
    sandbox_free(&j->sb);
    free(j->seed_arg);
    free(j->env_gpu);
    free(j->env_queues);
    free(j->dump);
    free(j->run_tap);
    free(j->verify_tap);
    free(j->ncu_first);
    gate_witness_free(&j->run_witness);
    list_cases_free(j->cases, j->n_cases);
    facts_free(&j->facts);
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
/* Correct: every case verified, and no earlier fact (a crash, a CUDA error) stands. */
/* The reference is checked before its verdict or time is asked for, and again after: the
 * sanitizers run student code while the verifier works. */
static int do_verify(struct job *j)
{
    if (!sol_intact(j))
        return 0;
    int ok = step_verify(j, j->dump, j->verify_tap) && facts_none(&j->facts);
    /* the verified outputs must be those the run had when it said its timed calls were over */
    ok = ok && witness_dump_checked(j);
    return sol_intact(j) && ok;
}
static int do_speed(struct job *j) { return sol_intact(j) && step_speed(j) && sol_intact(j); }

/* Too slow gets a second look. The reference was timed anew for a too-slow verdict
 * (step_speed), but the exercise's time was taken once, and a call of a few tens of
 * microseconds timed while other gradings build, verify and sanitize beside it came out a
 * fifth slower than the same code's reference on the H200. So the graded run is made once
 * more, alone, verified as the first was, and timed against a time of the reference's taken
 * alone now: the one this grading measured moments before, else one taken anew right after
 * (grade_check.c: reference_time). The second look decides (a run that is wrong or crashes
 * this time is graded for that). Only a result that would be too slow by its ratio, and
 * nothing else, is looked at twice. */
static int second_look(struct job *j)
{
    struct task_result *r = j->r;
    r->speed_first_ratio = r->speed_ratio;
    r->speed_measured = 0;
    j->witness_doubt = 0;
    fact_drop(&j->facts, OUTCOME_TOO_SLOW);
    remove_tree(j->dump);
    unlink(j->run_tap);
    if (mkdir(j->dump, 0700) != 0) {
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot write %s: %s", j->dump, strerror(errno));
        return 0;
    }
    job_progress(j, GRADE_STEP_RUN, "a second look");
    if (job_cancelled(j) || !timed(j, GRADE_STEP_RUN, do_run))
        return 0;
    job_progress(j, GRADE_STEP_VERIFY, "a second look");
    if (job_cancelled(j) || !timed(j, GRADE_STEP_VERIFY, do_verify))
        return 0;
    job_progress(j, GRADE_STEP_REFERENCE, "a second look");
    return !job_cancelled(j) && timed(j, GRADE_STEP_REFERENCE, do_speed);
}

/* This grading's work dir, fresh and private: an earlier run's files are removed and the dir
 * is made anew (mode 0700), so nothing another run left is ever read. When that cannot be
 * done, the grader's own error is the fact, not the student's build. */
static int make_work_dir(struct job *j)
{
    remove_tree(j->work);
    char *parent = xstrdup(j->work);
    *strrchr(parent, '/') = 0;
    int rc = mkdir_p(parent) == 0 && mkdir(j->work, 0700) == 0 ? 0 : -1;
    int err = errno;
    /* still there: another run's files that cannot be removed */
    if (rc != 0 && err == EEXIST)
        err = access(j->work, W_OK) != 0 ? errno : ENOTEMPTY;
    if (rc != 0)
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot write %s: %s",
                 err == EEXIST || err == ENOTEMPTY ? j->work : parent, strerror(err));
    free(parent);
    if (rc != 0)
        return -1;
    j->dump = xasprintf("%s/dump", j->scratch);
    j->run_tap = xasprintf("%s/exercise.tap", j->scratch);
    j->verify_tap = job_work_file(j, "verify.tap");
    char *out = job_work_file(j, "exercise.stdout"), *err_path = job_work_file(j, "exercise.stderr");
    set_str(&j->r->stdout_path, out);
    set_str(&j->r->stderr_path, err_path);
    free(out);
    free(err_path);
    if (mkdir(j->scratch, 0700) == 0 && mkdir(j->dump, 0700) == 0)
        return 0;
    job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot write %s: %s", j->work, strerror(errno));
    return -1;
}

/* The binary the build left in the scratch, moved out of it and shown to the sandbox read
 * only: every later run of the grading (the graded run, the sanitizers, a second look, ncu)
 * executes what the object check read, and none of them can replace it for the next. */
static int keep_binary(struct job *j)
{
    char *dir = job_work_file(j, "bin");
    char *bin = path_join(dir, task_name(j->t));
    int ok = mkdir(dir, 0700) == 0 && rename(j->ex_bin, bin) == 0;
    if (ok) {
        free(j->ex_bin);
        j->ex_bin = bin;
        j->bin_dir = dir;
        sandbox_add_ro(&j->sb, j->ex_bin);
    } else {
        job_fact(j, OUTCOME_NOT_RUN, "grader error: cannot move the built binary to %s: %s",
                 bin, strerror(errno));
        free(bin);
        free(dir);
    }
    return ok;
}

/* The build, or with --no-build the binaries as they are. The exercise file must exist: make
 * would relink an old object of a deleted file. */
static int build_or_check(struct job *j)
{
    char own[1024];
    if (j->o->own_exercises && own_tree_check(j->o->own_exercises, own, sizeof own) != 0) {
        job_fact(j, OUTCOME_REJECTED, "%s", own);
        return 0;
    }
    if (!is_file(j->ex_src)) {
        char *shown = j->o->exercises_dir ? xstrdup(j->ex_src)
                                          : xasprintf("exercises/%s/%s.cu",
                                                      lesson_id(task_lesson(j->t)), task_name(j->t));
        job_fact(j, OUTCOME_BUILD_FAILED, "%s is missing", shown);
        free(shown);
        return 0;
    }
    if (j->o->build) {
        job_progress(j, GRADE_STEP_BUILD, NULL);
        return timed(j, GRADE_STEP_BUILD, do_build) && keep_binary(j);
    }
    if (is_file(j->ex_bin) && is_file(j->sol_bin))
        return 1;
    job_fact(j, OUTCOME_BUILD_FAILED, "not built: %s", is_file(j->ex_bin) ? j->sol_bin : j->ex_bin);
    return 0;
}

/* What student code sees besides the system and its scratch (sandbox.h): the course's
 * headers and Makefile, the trusted objects it links against, the exercises it builds.
 * Not the solutions, not their binaries, not saved progress, not anyone else's files. */
void job_sandbox_view(struct job *j)
{
    sandbox_init(&j->sb, j->scratch);
    static const char *const from_root[] = {"Makefile", "common", "lessons"};
    static const char *const from_build[] = {".flags", "common", "obj/common", "obj/lessons",
                                             "obj-ex"};
    for (size_t i = 0; i < sizeof from_root / sizeof *from_root; i++) {
        char *p = path_join(j->root, from_root[i]);
        sandbox_add_ro(&j->sb, p);
        free(p);
    }
    for (size_t i = 0; i < sizeof from_build / sizeof *from_build; i++) {
        char *p = path_join(j->build_abs, from_build[i]);
        sandbox_add_ro(&j->sb, p);
        free(p);
    }
    sandbox_add_ro(&j->sb, j->exercises_abs);
    if (!j->o->build)
        sandbox_add_ro(&j->sb, j->ex_bin);
}

/* One step after another, each recording its facts; a step that returns 0 ends the grading.
 * The first part: every step up to the exercise's run. Returns 1 when the run is to be
 * checked (run_check). */
static int run_first(struct job *j)
{
    if (make_work_dir(j) != 0)
        return 0;
    job_sandbox_view(j);
    if (!build_or_check(j) || !sol_hash_take(j))
        return 0;
    job_progress(j, GRADE_STEP_SYMBOLS, NULL);
    if (job_cancelled(j) || !timed(j, GRADE_STEP_SYMBOLS, do_symbols))
        return 0;
    if (j->o->checks_only) {
        job_fact(j, OUTCOME_NOT_RUN, "%s", GRADE_CHECKS_ONLY_REASON);
        return 0;
    }
    job_progress(j, GRADE_STEP_LIST, NULL);
    if (job_cancelled(j) || !timed(j, GRADE_STEP_LIST, do_list))
        return 0;
    job_progress(j, GRADE_STEP_RUN, NULL);
    return !job_cancelled(j) && timed(j, GRADE_STEP_RUN, do_run);
}

/* The second: the verifier, with the sanitizers beside it (started first, stopped and
 * forgotten when the answer is wrong). Returns 1 when run_speed is to follow: the answer is
 * right and nothing else was found. */
static int run_check(struct job *j)
{
    if (j->o->sanitize && !job_cancelled(j))
        san_start(j);
    job_progress(j, GRADE_STEP_VERIFY, NULL);
    int correct = !job_cancelled(j) && timed(j, GRADE_STEP_VERIFY, do_verify);
    if (j->san) {
        /* what is left of the sanitizers' time after the verification they overlapped */
        double t0 = now_s();
        san_finish(j, correct);
        j->r->step_s[GRADE_STEP_SANITIZE] = now_s() - t0;
    }
    /* the dumps were read: a second look makes its own */
    remove_tree(j->dump);
    return correct && facts_none(&j->facts) && !job_cancelled(j);
}

/* The third: the times that need the GPU alone, and ncu's. A drawn cross-check takes its first
 * look before them: its turn is a first look's, which need not wait for the GPU alone. */
static void run_speed(struct job *j)
{
    job_progress(j, GRADE_STEP_REFERENCE, NULL);
    if (job_cancelled(j))
        return;
    ncu_draw_look(j);
    if (job_cancelled(j))
        return;
    if (j->ncu_looked)
        job_progress(j, GRADE_STEP_REFERENCE, NULL);
    int fast_enough = timed(j, GRADE_STEP_REFERENCE, do_speed);
    /* a first look the witness doubted (witness.h) was taken beside other work: a second
     * look, alone, decides whether its time is forged */
    if (((!fast_enough && j->facts.bits == 1u << OUTCOME_TOO_SLOW) ||
         (fast_enough && j->witness_doubt)) &&
        j->r->speed_measured && !job_cancelled(j))
        fast_enough = second_look(j);
    if (fast_enough && !job_cancelled(j))
        step_ncu(j);
    if (j->o->profile_args && j->r->speed_measured && !job_cancelled(j)) {
        double t0 = now_s();
        step_profile(j);
        j->r->step_s[GRADE_STEP_PROFILE] += now_s() - t0;
    }
}

struct grading {
    struct job j;
    int checked;    /* run_first asked for run_check */
    int speed_next; /* run_check asked for run_speed */
    double busy_s;  /* grade_begin's, grade_check's and grade_end's wall time */
    double began;   /* grade_begin's start (now_s) */
};

struct grading *grade_begin(const struct task *t, const struct grade_opts *o)
{
    double t0 = now_s();
    struct grading *g = xcalloc(1, sizeof *g);
    g->began = t0;
    job_init(&g->j, t, o);
    char hash[HASH_HEX_LEN + 1];
    if (hash_file_hex(g->j.ex_src, hash) == 0)
        set_str(&g->j.r->exercise_hash, hash);
    g->checked = run_first(&g->j);
    g->busy_s = now_s() - t0;
    return g;
}

void grade_check(struct grading *g)
{
    double t0 = now_s();
    g->speed_next = g->checked && run_check(&g->j);
    g->checked = 0;
    g->busy_s += now_s() - t0;
}

int grading_times_next(const struct grading *g)
{
    return g->speed_next;
}

void grading_turn_wait(struct grading *g, void (*wait)(void *ctx), void *ctx)
{
    g->j.turn_wait = wait;
    g->j.turn_ctx = ctx;
}

struct task_result *grade_end(struct grading *g)
{
    if (g->checked)
        grade_check(g);
    double t0 = now_s();
    if (g->speed_next)
        run_speed(&g->j);
    /* nothing the student's code wrote stays, nor its binary */
    remove_tree(g->j.scratch);
    if (g->j.bin_dir)
        remove_tree(g->j.bin_dir);
    struct task_result *r = g->j.r;
    double end = now_s();
    /* the grading's own thread's waits for the GPU (job_gpu_account) are in busy_s; the time
     * between its stages, out of it, was spent waiting for other tasks */
    r->duration_s = fmax(0, g->busy_s + (end - t0) - r->wait_s);
    r->wait_s = fmax(0, (end - g->began) - r->duration_s);
    outcome_decide(r, &g->j.facts, job_cancelled(&g->j));
    job_progress(&g->j, GRADE_STEP_DONE, outcome_name(r->outcome));
    job_free(&g->j);
    free(g);
    return r;
}

struct task_result *grade_task(const struct task *t, const struct grade_opts *o)
{
    return grade_end(grade_begin(t, o));
}

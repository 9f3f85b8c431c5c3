/* grade_job.c — one grading in progress (grade_job.h): its paths and options, the bounds and
 * the sandbox of the programs it runs, its turns at the GPU and their accounting, the facts it
 * records. Every step of grade_steps.h stands on these; none of them calls back into a step. */
#include "grade_job.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FLOOD_BYTES ((size_t)64 << 20)
#define DUMP_FILE_BYTES (1ull << 30)
#define SCRATCH_BYTES (4ull << 30)
#define STUDENT_MAX_PROCS 32

/* ======================================================================= paths and options */
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


/* ======================================================================= facts and progress */
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
    struct run_spec *spec;   /* the run's, whose turn_s job->turn_bound may set at the turn */
};

static void take_turn(void *arg)
{
    struct gate_turn *t = arg;
    /* grade_many's times, started early, wait here for every task's first look and checks,
     * holding nothing: the checks of their own grading take the GPU shared, and another
     * grading's run waiting for the GPU alone lets no new shared holder by (gpulock.c), so a
     * shared hold kept through this wait closed a circle between two gradings of one GPU.
     * The program sits idle at its gate meanwhile; its turn takes the lock again. */
    if (t->j->turn_wait) {
        gpu_hold_drop(&t->hold);
        t->j->turn_wait(t->j->turn_ctx);
    }
    gpu_hold_turn(&t->hold, t->j->o->gpu_lock, t->use, t->j->o->cancel);
    t->turn_at = now_s();
    /* asked now, not as the run began: a time the class's cache got while this run started
     * and waited for its turn bounds it too */
    double bound = t->j->turn_bound ? t->j->turn_bound(t->j) : 0;
    if (bound > 0)
        t->spec->turn_s = bound;
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
    struct gpu_hold hold = gpu_hold_take(j->o->gpu_lock, gated ? GPU_SHARED : use, j->o->cancel);
    double waited = now_s() - t0, from = t0 + waited;
    if (gated && use != GPU_SHARED) {
        struct run_spec g = *s;
        struct gate_turn turn = {j, use, hold, 0, 0, &g};
        struct run_gate gate = {take_turn, end_turn, &turn, w};
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

char *job_first_line(const char *path, const char *must_contain)
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

const struct case_result *job_flagged_case(const struct task_result *r, const char *named,
                                           unsigned flag)
{
    for (size_t i = 0; i < r->n_cases; i++)
        if (named[0] ? strcmp(r->cases[i].name, named) == 0 : (r->cases[i].flags & flag) != 0)
            return &r->cases[i];
    return NULL;
}

char *job_ref_key(const struct job *j, const char *speed_case)
{
    return xasprintf("%s__%s__%s__%.16s", lesson_id(task_lesson(j->t)), task_name(j->t),
                     speed_case, j->sol_hash[0] ? j->sol_hash : "-");
}

char *find_cuda_tool(const char *given, const char *name)
{
    if (given)
        return access(given, X_OK) == 0 ? xstrdup(given) : NULL;
    const char *path = getenv("PATH");
    char *copy = xstrdup(path ? path : ""), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *p = xasprintf("%s/%s", d, name);
        if (access(p, X_OK) == 0) {
            free(copy);
            return p;
        }
        free(p);
    }
    free(copy);
    const char *cuda = getenv("CUDA_HOME");
    char *p = xasprintf("%s/bin/%s", cuda && *cuda ? cuda : "/usr/local/cuda", name);
    if (access(p, X_OK) == 0)
        return p;
    free(p);
    return NULL;
}

/* student.c — one student (class_int.h): the course built once, every task of a student built
 * and graded as `grader --batch` does it (the student's build in the sandbox, grade.h),
 * DIR/<student>/results.json. The course's make runs bounded by --make-timeout in a process
 * group of its own (runner.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "class_int.h"
#include "gpulock.h"
#include "grade.h"
#include "collect.h"
#include "gradebook.h"
#include "runner.h"
#include "util.h"

/* make -C ROOT -k -j<cores> WORDS..., bounded by o->make_timeout; 0 when make succeeded. */
static int class_make(const struct class_opts *o, char *const *words, size_t n_words,
                      const char *log)
{
    char **argv = xcalloc(n_words + 7, sizeof *argv);
    char *jobs = xasprintf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
    size_t k = 0;
    argv[k++] = "make";
    argv[k++] = "--no-print-directory";
    argv[k++] = "-k";
    argv[k++] = "-C";
    argv[k++] = (char *)o->root;
    argv[k++] = jobs;
    for (size_t i = 0; i < n_words; i++)
        argv[k++] = words[i];
    struct run_spec spec = { .argv = argv, .stdout_path = log, .stderr_path = log,
                             .wall_s = o->make_timeout, .output_cap = 16u << 20,
                             .cancel = &class_cancel };
    struct run_result res;
    int rc = run_sandboxed(&spec, &res) == 0 && res.end == RUN_EXITED && res.exit_status == 0
                 ? 0 : -1;
    if (res.end == RUN_TIMED_OUT)
        fprintf(stderr, "grader class: make timed out after %g s (--make-timeout): see %s\n",
                o->make_timeout, log);
    free(jobs);
    free(argv);
    return rc;
}

static void free_words(char **words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(words[i]);
    free(words);
}

/* The course, once: every reference solution (and the lab library with them). */
int build_course(const struct class_opts *o, const struct course *c)
{
    size_t n = course_task_count(c), k = 0;
    char **words = xcalloc(n + 1, sizeof *words);
    char *log = xasprintf("%s/course-build.log", o->work);
    words[k++] = xasprintf("BUILD=%s", o->build_dir);
    for (size_t i = 0; i < n; i++)
        words[k++] = xasprintf("%s/solutions/%s", o->build_dir, task_id(course_task(c, i)));
    fprintf(stderr, "grader class: building the course once (log: %s)\n", log);
    int rc = class_make(o, words, k, log);
    if (rc != 0)
        fprintf(stderr, "grader class: the course does not build: see %s\n", log);
    free_words(words, k);
    free(log);
    return rc;
}

/* The student's name as a path component make and shells take as one word: unsafe bytes
 * become '_' and a short hash of the real name keeps "a b" and "a_b" apart. */
static char *scratch_name(const char *name)
{
    char hex[HASH_HEX_LEN + 1];
    hash_sha256_hex(name, strlen(name), hex);
    char *out = xasprintf("%s-%.8s", name, hex);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            *p = '_';
    return out;
}

static void progress_quiet(void *user, const struct task *t, enum grade_step step,
                           const char *detail)
{
    (void)user; (void)t; (void)step; (void)detail;
}

static int submitted(const char *exercises_dir, const struct task *t)
{
    char *file = xasprintf("%s/%s.cu", exercises_dir, task_id(t));
    int yes = is_file(file);
    free(file);
    return yes;
}

/* A student's tasks and where each is graded: one set of options per GPU (they differ in
 * gpu, gpu_lock and ref_cache), and with a board, the GPU each task was sent to. */
struct placed {
    const struct course *c;
    struct grade_opts *opts;  /* [n_opts] */
    size_t n_opts;
    struct gpu_board *board;  /* NULL: every task on opts[0] */
    size_t slot;
    const struct task **mine;
    size_t *on;               /* [n]: the index into opts of each task begun */
    struct task_result **results;
};

static size_t course_index(const struct course *c, const struct task *t)
{
    for (size_t i = 0; i < course_task_count(c); i++)
        if (course_task(c, i) == t)
            return i;
    return SIZE_MAX;
}

/* With GRADER_GPU_TRACE naming the engine's trace of GPU holds (grade_job.c: gpu_trace), one line
 * per task to <trace>.gpus: "<pid> <task> <gpu>", the GPU its runs' lines of that pid and task
 * name used (-1: the GPUs the grader sees). tests/class/bench_class.sh reads it for each GPU's
 * time line. Lines are written whole with O_APPEND. */
static void trace_gpu(const struct task *t, int gpu)
{
    const char *trace = getenv("GRADER_GPU_TRACE");
    if (!trace || !*trace)
        return;
    char *path = xasprintf("%s.gpus", trace);
    char *line = xasprintf("%ld %s %d\n", (long)getpid(), task_name(t), gpu);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, strlen(line)) < 0) {
            /* a measurement aid: a lost line loses no grading */
        }
        close(fd);
    }
    free(line);
    free(path);
}

static const struct grade_opts *pick_gpu(size_t i, void *user)
{
    struct placed *p = user;
    p->on[i] = p->board ? board_pick(p->board, p->slot, course_index(p->c, p->mine[i])) : 0;
    trace_gpu(p->mine[i], p->opts[p->on[i]].gpu);
    return &p->opts[p->on[i]];
}

static void keep_result(size_t i, struct task_result *r, void *user)
{
    struct placed *p = user;
    p->results[i] = r;
    if (p->board)
        board_done(p->board, p->slot, p->on[i]);
}

/* Every task of the course into s: graded when the student has its file, else not
 * submitted; the submitted ones built ahead, one make per side (grade_batch_build), then
 * graded one after the other, the next one's run starting while this one is checked
 * (grade_ahead), each on the GPU p picks as it begins. 0, or 1 when cancelled. */
static int grade_tasks(struct placed *p, struct gb_student *s)
{
    const struct course *c = p->c;
    struct grade_opts *g = &p->opts[0];
    size_t n_course = course_task_count(c), n = 0;
    const struct task **mine = xcalloc(n_course + 1, sizeof *mine);
    struct task_result **results = xcalloc(n_course + 1, sizeof *results);
    for (size_t i = 0; i < n_course; i++)
        if (submitted(g->exercises_dir, course_task(c, i)))
            mine[n++] = course_task(c, i);
    struct grade_batch *batch = grade_batch_build(mine, n, g);
    for (size_t k = 0; k < p->n_opts; k++)
        p->opts[k].batch = batch;
    p->mine = mine;
    p->results = results;
    p->on = xcalloc(n_course + 1, sizeof *p->on);
    size_t graded = grade_ahead_pick(mine, n, g, pick_gpu, p, keep_result, p);
    int rc = class_cancel || graded < n ? 1 : 0;
    for (size_t i = 0, k = 0; i < n_course; i++) {
        const struct task *t = course_task(c, i);
        if (k < n && mine[k] == t) {
            if (!rc)
                gb_student_add_result(s, t, results[k]);
            task_result_free(results[k++]);
        } else if (!rc) {
            gb_student_add_task(s, task_id(t), task_title(t), 0, task_weight(t),
                                GB_NOT_SUBMITTED, "not submitted", NULL);
        }
    }
    for (size_t k = 0; k < p->n_opts; k++)
        p->opts[k].batch = NULL;
    grade_batch_free(batch);
    free(p->on);
    free(results);
    free(mine);
    return rc;
}

static void drop_result(size_t i, struct task_result *r, void *user)
{
    (void)i;
    (void)user;
    task_result_free(r);
}

/* The files one GPU's gradings share, under the work directory: its lock (gpulock.h) and its
 * reference times (refcache.h). */
static void gpu_shared_paths(const struct class_opts *o, int gpu, char **lock, char **refs)
{
    char *dir = xasprintf("%s/gpus", o->work);
    mkdir_p(dir);
    *lock = gpu_file_path(dir, gpu, ".lock");
    *refs = o->ref_every > 1 ? gpu_file_path(dir, gpu, ".reference") : NULL;
    free(dir);
}

static void student_grade_opts(const struct class_opts *o, struct grade_opts *g,
                               const char *name, int gpu)
{
    grade_opts_init(g);
    g->root = o->root;
    g->build_dir = o->build_dir;
    g->seed_set = 1;
    g->seed = student_seed(o->seed, name);
    g->sanitize = o->sanitize;
    g->gpu = gpu;
    g->no_sandbox = o->no_sandbox; /* one meaning for --batch and the class */
    if (o->ncu_share >= 0)
        g->ncu_share = o->ncu_share;
    if (o->profile)
        g->profile_args = profile_ncu_args();
    if (o->run_timeout > 0)
        g->run_timeout_s = o->run_timeout;
    if (o->build_timeout > 0)
        g->build_timeout_s = o->build_timeout;
    g->progress = progress_quiet;
    g->cancel = &class_cancel;
}

/* DIR/NAME/exercises, absolute, its links not resolved (owntree.h), malloc'd. */
static char *own_exercises_path(const struct class_opts *o, const char *name)
{
    if (o->dir[0] == '/')
        return xasprintf("%s/%s/exercises", o->dir, name);
    char *cwd = getcwd(NULL, 0);
    char *p = xasprintf("%s/%s/%s/exercises", cwd ? cwd : ".", o->dir, name);
    free(cwd);
    return p;
}

/* make splits words on spaces and reads quotes: it sees the student's files through a link
 * whose path has neither, whatever the student's directory is called. 0 or -1. */
static int scratch_setup(const struct class_opts *o, const char *name, char **exbuild,
                         char **exdir)
{
    char *safe = scratch_name(name);
    char *student_ex = xasprintf("%s/%s/exercises", o->dir, name);
    *exbuild = xasprintf("%s/%s", o->work, safe);
    *exdir = xasprintf("%s/exercises-src", *exbuild);
    int rc = mkdir_p(*exbuild) != 0 || (unlink(*exdir) != 0 && errno != ENOENT) ||
                     symlink(student_ex, *exdir) != 0
                 ? -1 : 0;
    if (rc != 0)
        fprintf(stderr, "grader class: %s: cannot create the scratch directory under %s\n",
                name, o->work);
    free(safe);
    free(student_ex);
    return rc;
}

/* One student, each task on one of gpus[0..n_gpus) (n_gpus 0: the GPUs the grader sees),
 * picked by board as it begins when there is one. */
static int grade_placed(const struct class_opts *o, const struct course *c, const char *name,
                        const char *hash, const int *gpus, size_t n_gpus,
                        struct gpu_board *board, size_t slot)
{
    char *exdir = NULL, *exbuild = NULL;
    if (scratch_setup(o, name, &exbuild, &exdir) != 0) {
        free(exdir);
        free(exbuild);
        return -1;
    }
    /* the student's own exercises, not the scratch's link to them: a link of theirs that
     * leads to a classmate's files is refused before anything is built */
    char *own = own_exercises_path(o, name);
    size_t n_opts = n_gpus ? n_gpus : 1;
    struct grade_opts *opts = xcalloc(n_opts, sizeof *opts);
    char **shared = xcalloc(2 * n_opts, sizeof *shared);
    for (size_t k = 0; k < n_opts; k++) {
        struct grade_opts *g = &opts[k];
        student_grade_opts(o, g, name, n_gpus ? gpus[k] : -1);
        g->exercises_dir = exdir;
        g->exbuild_dir = exbuild;
        g->own_exercises = own;
        gpu_shared_paths(o, g->gpu, &shared[2 * k], &shared[2 * k + 1]);
        g->gpu_lock = shared[2 * k];
        g->ref_cache = shared[2 * k + 1];
        g->ref_max_uses = o->ref_every;
    }
    struct placed p = {.c = c, .opts = opts, .n_opts = n_opts,
                       .board = n_opts > 1 ? board : NULL, .slot = slot};
    struct gb_student s;
    gb_student_init(&s, name);
    set_str(&s.hash, hash);
    s.seed = opts[0].seed;
    s.seed_known = 1;
    double t0 = now_s();
    int rc = grade_tasks(&p, &s);
    s.execution_time = now_s() - t0;
    s.graded_at = (int64_t)time(NULL);
    char *path = results_path(o->dir, name);
    if (rc == 0 && gb_results_write(path, &s) != 0) {
        fprintf(stderr, "grader class: %s: cannot write results.json: %s\n", name,
                strerror(errno));
        rc = -1;
    }
    free(path);
    gb_student_free(&s);
    if (!o->keep_work)
        remove_tree(exbuild);
    free(exdir);
    free(exbuild);
    free(own);
    for (size_t k = 0; k < 2 * n_opts; k++)
        free(shared[k]);
    free(shared);
    free(opts);
    return rc;
}

/* Each task's reference timed on gpu into that GPU's cache (gpu_shared_paths: the files one
 * GPU's gradings share) before its gradings need it, so that the first looks of a class's
 * first round have their turns bounded (grade_run.c) as the later ones do: without a time in
 * the cache, a hanging first look held an H200 x2 host's GPU 0 for the whole run limit, 59 s,
 * and the three gradings beside it waited. The references' runs need the GPU alone, so they
 * are timed here, before the students' programs fill the GPU, and not in a student's chain,
 * where each would wait for that student's neighbours' programs to drain (DESIGN-NOTES,
 * tried and left). In a scratch directory of its own, work/references-gpuN. */
int time_references(const struct class_opts *o, const struct course *c,
                    const char *const *names, size_t n_names, int gpu)
{
    if (o->ref_every <= 1)
        return 0;
    struct grade_opts g;
    student_grade_opts(o, &g, "references", gpu);
    char *lock, *refs;
    gpu_shared_paths(o, gpu, &lock, &refs);
    g.gpu_lock = lock;
    g.ref_cache = refs;
    char *exbuild = gpu >= 0 ? xasprintf("%s/references-gpu%d", o->work, gpu)
                             : xasprintf("%s/references", o->work);
    g.exbuild_dir = exbuild;
    g.ref_max_uses = o->ref_every;
    g.references_only = 1;
    g.build = 0;
    g.sanitize = 0;
    g.profile_args = NULL;
    /* the tasks some student to be graded handed in: a class regrading one student who
     * handed in two times two references, not the course's */
    char **own = xcalloc(n_names + 1, sizeof *own);
    for (size_t k = 0; k < n_names; k++)
        own[k] = own_exercises_path(o, names[k]);
    size_t n_course = course_task_count(c), n = 0;
    const struct task **tasks = xcalloc(n_course + 1, sizeof *tasks);
    for (size_t i = 0; i < n_course; i++) {
        const struct task *t = course_task(c, i);
        int wanted = 0;
        for (size_t k = 0; k < n_names && !wanted; k++)
            wanted = submitted(own[k], t);
        if (wanted) {
            tasks[n++] = t;
            trace_gpu(t, gpu);
        }
    }
    for (size_t k = 0; k < n_names; k++)
        free(own[k]);
    free(own);
    size_t done = n ? grade_many(tasks, n, &g, (unsigned)o->jobs, drop_result, NULL) : 0;
    free(tasks);
    if (!o->keep_work)
        remove_tree(exbuild);
    free(exbuild);
    free(lock);
    free(refs);
    return class_cancel || done < n ? 1 : 0;
}

int grade_student(const struct class_opts *o, const struct course *c, const char *name,
                  const char *hash, int gpu)
{
    return grade_placed(o, c, name, hash, &gpu, gpu >= 0, NULL, 0);
}

int grade_student_on(const struct class_opts *o, const struct course *c, const char *name,
                     const char *hash, struct gpu_board *board, size_t slot)
{
    return grade_placed(o, c, name, hash, o->gpus, o->n_gpus, board, slot);
}

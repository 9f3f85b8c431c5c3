/* grade_build.c — step 1 of grade.h: the reference solution built outside the sandbox, then the
 * exercise inside it; and the one build of many tasks ahead of their gradings
 * (grade_batch_build), of which each task's build step only takes its own part.
 *
 * Attribution: a task whose object and binary the batch's make left is built; its log is the
 * lines of that make's log that name its files. A task whose target is not there builds alone,
 * exactly as without a batch, into its own scratch directory: its log then holds its own
 * errors and nothing of the other tasks', and its reason is the one a grading of it alone
 * gives. This costs one more make, for a task that does not compile only, and needs nothing
 * of the Makefile's recipes nor of the order in which a parallel make prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade_job.h"
#include "grade_steps.h"
#include "owntree.h"

#define MAX_DIAGS 50

struct grade_batch {
    const struct task **tasks;
    size_t n;
    char *scratch;      /* where the exercises' make wrote: the batch's own scratch directory */
    char *log;          /* that make's output */
    int course_built;   /* the references of every task of the batch are built */
    int exercises_made; /* the exercises' make ran to its end: every target it left is whole */
    unsigned makes;
    double seconds;
};

/* ARCH as the course's build recorded it (the first word of BUILD/.flags), so that the
 * sandboxed make, which cannot write there, sees the same flags; NULL when there is none. */
static char *recorded_arch(const struct job *j)
{
    char *path = xasprintf("%s/.flags", j->build_abs);
    char *text = read_text_file(path, 256);
    free(path);
    char arch[32] = "";
    if (text && sscanf(text, "sm_%27[0-9a-z]", arch + 3) == 1)
        memcpy(arch, "sm_", 3);
    free(text);
    return arch[0] ? xasprintf("ARCH=%s", arch) : NULL;
}

/* make -C ROOT JOBS [BUILD=...] WORDS... (variables, flags, targets; NULL-terminated), its
 * output to log; the student's make in the sandbox, bounded as a build of student code. */
static void run_make(struct job *j, const char *log, int student, const char *jobs,
                     char *const *words, struct run_result *res, char *how, size_t how_len)
{
    const char *build_dir = j->o->build_dir ? j->o->build_dir : "build";
    char *build_var = xasprintf("BUILD=%s", build_dir);
    size_t n_words = 0;
    while (words[n_words])
        n_words++;
    char **argv = xcalloc(n_words + 7, sizeof *argv);
    size_t n = 0;
    argv[n++] = (char *)j->o->make;
    argv[n++] = "-C";
    argv[n++] = (char *)j->root;
    argv[n++] = "--no-print-directory";
    argv[n++] = (char *)jobs;
    if (strcmp(build_dir, "build") != 0)
        argv[n++] = build_var;
    memcpy(argv + n, words, n_words * sizeof *argv);
    struct run_spec s;
    if (student)
        job_spec_student(j, &s, argv, j->o->build_timeout_s);
    else
        job_spec_init(j, &s, argv, j->o->build_timeout_s);
    s.cwd = j->root;
    s.stdout_path = s.stderr_path = log;
    s.max_procs = 0;
    s.data_bytes = student ? j->mem_limit : 0; /* a compile may not eat the machine either */
    s.cpu_s = 0;
    s.nice = BESIDE_NICE;
    run_sandboxed(&s, res);
    run_describe(&s, res, how, how_len);
    free(argv);
    free(build_var);
}

/* The student's make's words: the exercises, where their objects and binaries go, the ARCH
 * the course was built with (when recorded), flag (or NULL), then the targets.
 * NULL-terminated, malloc'd; free with free_words. */
static char **exercise_words(const struct job *j, const char *flag, char *const *targets,
                             size_t n_targets)
{
    char **w = xcalloc(n_targets + 5, sizeof *w);
    size_t n = 0;
    w[n++] = xasprintf("EXERCISES=%s", j->exercises_abs);
    w[n++] = xasprintf("EXBUILD=%s", j->scratch);
    if ((w[n] = recorded_arch(j)))
        n++;
    if (flag)
        w[n++] = xstrdup(flag);
    for (size_t i = 0; i < n_targets; i++)
        w[n++] = xstrdup(targets[i]);
    return w;
}

static void free_words(char **w)
{
    for (char **p = w; *p; p++)
        free(*p);
    free(w);
}

static void build_failed(struct job *j, const char *how)
{
    struct task_result *r = j->r;
    const struct compiler_diag *d = NULL;
    for (size_t i = 0; i < r->n_diags && !d; i++)
        if (strstr(r->diags[i].severity, "error"))
            d = &r->diags[i];
    if (d && d->file[0])
        job_fact(j, OUTCOME_BUILD_FAILED, "%s:%d: %s: %s", d->file, d->line, d->severity,
                 d->text);
    else if (d)
        job_fact(j, OUTCOME_BUILD_FAILED, "%s: %s", d->severity, d->text);
    else
        job_fact(j, OUTCOME_BUILD_FAILED, "make failed (%s): see the build log", how);
}

/* The trusted part, outside the sandbox: the reference solution, and with it the harness,
 * the lesson's objects and the lab library. */
static int build_reference(struct job *j)
{
    char how[256];
    struct run_result res;
    char *log = job_work_file(j, "build-course.log");
    char *words[] = {j->sol_target, NULL};
    run_make(j, log, 0, "-j4", words, &res, how, sizeof how);
    int ok = res.end == RUN_EXITED && res.exit_status == 0 && is_file(j->sol_bin);
    if (!ok) {
        set_str(&j->r->build_log_path, log);
        if (res.end != RUN_CANCELLED)
            job_fact(j, OUTCOME_BUILD_FAILED,
                     "the course's reference solution does not build: see %s", log);
    }
    free(log);
    return ok;
}

/* The student's object and binary, in the sandbox, into the scratch directory, where a write
 * to the course's build fails. */
static int build_exercise(struct job *j)
{
    struct task_result *r = j->r;
    char how[256];
    struct run_result res;
    char *log = job_work_file(j, "build.log");
    set_str(&r->build_log_path, log);
    char **words = exercise_words(j, NULL, &j->ex_target, 1);
    run_make(j, log, 1, "-j4", words, &res, how, sizeof how);
    char *text = read_text_file(log, LOG_READ_MAX);
    size_t from = r->n_diags;
    if (text)
        parse_compiler_diags(text, j->root, r, MAX_DIAGS);
    job_show_exercises(j, from, r->n_findings);
    free(text);
    int ok = res.end == RUN_EXITED && res.exit_status == 0 && is_file(j->ex_bin);
    if (!ok && res.end != RUN_CANCELLED)
        build_failed(j, how);
    free_words(words);
    free(log);
    return ok;
}

/* ======================================================================= the batch's part */
static int in_batch(const struct grade_batch *b, const struct task *t)
{
    for (size_t i = 0; b && i < b->n; i++)
        if (b->tasks[i] == t)
            return 1;
    return 0;
}

/* path in line as a whole path: not the start of a longer name ("L/T" in "L/T_big"). */
static int names_path(const char *line, const char *path)
{
    size_t len = strlen(path);
    for (const char *p = strstr(line, path); p; p = strstr(p + 1, path)) {
        char next = p[len];
        if (!(next == '_' || next == '.' || next == '-' || next == '+' ||
              (next >= '0' && next <= '9') || (next >= 'a' && next <= 'z') ||
              (next >= 'A' && next <= 'Z')))
            return 1;
    }
    return 0;
}

/* The task's build log: the lines of the batch's log that name its source, object or binary
 * (the compile, the link, the compiler's messages on its file), and its diagnostics. */
static void own_log(const struct grade_batch *b, struct job *j, const char *obj, const char *bin)
{
    char *log = job_work_file(j, "build.log");
    set_str(&j->r->build_log_path, log);
    char *text = read_text_file(b->log, LOG_READ_MAX);
    FILE *out = fopen(log, "w");
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && out;
         line = strtok_r(NULL, "\n", &save))
        if (names_path(line, j->ex_src) || names_path(line, obj) || names_path(line, bin))
            fprintf(out, "%s\n", line);
    if (out)
        fclose(out);
    free(text);
    text = read_text_file(log, LOG_READ_MAX);
    size_t from = j->r->n_diags;
    if (text)
        parse_compiler_diags(text, j->root, j->r, MAX_DIAGS);
    job_show_exercises(j, from, j->r->n_findings);
    free(text);
    free(log);
}

/* from to to, making to's directory: 0, or -1. */
static int move_to(const char *from, const char *to)
{
    char *dir = xstrdup(to);
    *strrchr(dir, '/') = 0;
    int rc = mkdir_p(dir) == 0 && rename(from, to) == 0 ? 0 : -1;
    free(dir);
    return rc;
}

/* The task's object and binary from the batch's scratch into its own: 1 when both were
 * there (the make that left them ran to its end, so they are whole). */
static int batch_take(const struct grade_batch *b, struct job *j)
{
    if (!b->exercises_made || !in_batch(b, j->t))
        return 0;
    const char *lid = lesson_id(task_lesson(j->t)), *name = task_name(j->t);
    char *bin = xasprintf("%s/exercises/%s/%s", b->scratch, lid, name);
    char *obj = xasprintf("%s/obj/exercises/%s/%s.o", b->scratch, lid, name);
    int ok = is_file(bin) && is_file(obj) && move_to(obj, j->ex_obj) == 0;
    if (ok && move_to(bin, j->ex_bin) != 0) {
        unlink(j->ex_obj); /* built alone, from nothing, as without a batch */
        ok = 0;
    }
    if (ok)
        own_log(b, j, obj, bin);
    free(bin);
    free(obj);
    return ok;
}

int step_build(struct job *j)
{
    const struct grade_batch *b = j->o->batch;
    if (!(in_batch(b, j->t) && b->course_built) && !build_reference(j))
        return 0;
    return (b && batch_take(b, j)) || build_exercise(j);
}

/* ======================================================================= the batch's makes */
static const char *jobs_flag(char *buf, size_t len)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(buf, len, "-j%ld", cores > 4 ? cores : 4);
    return buf;
}

/* The batch's directory, fresh and private, with its scratch directory: 0, or -1. */
static int batch_dirs(const struct job *j)
{
    remove_tree(j->work);
    char *parent = xstrdup(j->work);
    *strrchr(parent, '/') = 0;
    int rc = mkdir_p(parent) == 0 && mkdir(j->work, 0700) == 0 && mkdir(j->scratch, 0700) == 0
                 ? 0 : -1;
    free(parent);
    return rc;
}

/* Every task's reference, in one make outside the sandbox: 1 when all of them are there. */
static int batch_course(struct grade_batch *b, struct job *j)
{
    char **words = xcalloc(b->n + 1, sizeof *words);
    for (size_t i = 0; i < b->n; i++)
        words[i] = xasprintf("%s/solutions/%s", j->o->build_dir ? j->o->build_dir : "build",
                             task_id(b->tasks[i]));
    char how[256], jobs[32];
    struct run_result res;
    char *log = job_work_file(j, "build-course.log");
    run_make(j, log, 0, jobs_flag(jobs, sizeof jobs), words, &res, how, sizeof how);
    b->makes++;
    int ok = res.end == RUN_EXITED && res.exit_status == 0;
    for (size_t i = 0; ok && i < b->n; i++) {
        char *sol = xasprintf("%s/solutions/%s", j->build_abs, task_id(b->tasks[i]));
        ok = is_file(sol);
        free(sol);
    }
    free_words(words);
    free(log);
    return ok;
}

/* Every exercise that exists, in one make -k in the sandbox: 1 when it ran to its end. */
static int batch_exercises(struct grade_batch *b, struct job *j)
{
    char **targets = xcalloc(b->n + 1, sizeof *targets);
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++) {
        char *src = xasprintf("%s/%s.cu", j->exercises_abs, task_id(b->tasks[i]));
        if (is_file(src))
            targets[n++] = xasprintf("%s/exercises/%s", j->scratch, task_id(b->tasks[i]));
        free(src);
    }
    char how[256], jobs[32];
    struct run_result res = {0};
    if (n) {
        char **words = exercise_words(j, "-k", targets, n);
        run_make(j, b->log, 1, jobs_flag(jobs, sizeof jobs), words, &res, how, sizeof how);
        b->makes++;
        free_words(words);
    }
    free_words(targets);
    return n && res.end == RUN_EXITED;
}

struct grade_batch *grade_batch_build(const struct task *const *tasks, size_t n,
                                      const struct grade_opts *o)
{
    char own[1024];
    if (n < 2 || !o->build ||
        (o->own_exercises && own_tree_check(o->own_exercises, own, sizeof own) != 0))
        return NULL; /* refused: each task says why (build_or_check), and nothing is made */
    double t0 = now_s();
    struct grade_batch *b = xcalloc(1, sizeof *b);
    b->tasks = xcalloc(n, sizeof *b->tasks);
    memcpy(b->tasks, tasks, n * sizeof *tasks);
    b->n = n;
    struct job j;
    job_init(&j, tasks[0], o);
    free(j.work);
    free(j.scratch);
    j.work = o->work_dir ? path_join(o->work_dir, ".batch")
                         : xasprintf("%s/grader/.batch", j.exbuild_abs);
    j.scratch = path_join(j.work, "scratch");
    b->scratch = xstrdup(j.scratch);
    b->log = job_work_file(&j, "build.log");
    if (batch_dirs(&j) == 0) {
        job_sandbox_view(&j);
        b->course_built = batch_course(b, &j);
        if (b->course_built && !job_cancelled(&j))
            b->exercises_made = batch_exercises(b, &j);
    }
    task_result_free(j.r);
    job_free(&j);
    b->seconds = now_s() - t0;
    return b;
}

unsigned grade_batch_makes(const struct grade_batch *b)
{
    return b ? b->makes : 0;
}

int grade_batch_course_built(const struct grade_batch *b) { return b && b->course_built; }

double grade_batch_seconds(const struct grade_batch *b)
{
    return b ? b->seconds : 0;
}

void grade_batch_free(struct grade_batch *b)
{
    if (!b)
        return;
    remove_tree(b->scratch); /* what the student's make wrote outlives no grading */
    free(b->tasks);
    free(b->scratch);
    free(b->log);
    free(b);
}

/* class.c — `grader class DIR` and `grader collect DIR`: see class.h.
 *
 * Layout of a class directory:
 *   DIR/<student>/exercises/L/T.cu   the student's files, only ever read
 *   DIR/<student>/results.json       written here (Gradescope schema, gradebook.h)
 *   DIR/gradebook.csv, DIR/junit.xml merged from every results.json
 *   DIR/.grader/slurm/               job.json (job id, students, course key), job.sh, logs/
 *
 * A student's results carry the SHA-256 of their files together with the course's files and
 * the grading options (the "course key"): while both are unchanged the student is not
 * graded again, so an interrupted run resumes where it stopped. */
#include "class.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "grade.h"
#include "gradebook.h"
#include "hash.h"
#include "model.h"
#include "report.h"
#include "result_json.h"
#include "session.h"
#include "sandbox.h"
#include "slurm.h"

#define MAX_GPUS 64
#define MAX_ONLY 256

struct class_opts {
    const char *dir;           /* the class, absolute */
    const char *root;          /* the course, absolute */
    const char *build_dir;     /* the course's pristine build, relative to root or absolute */
    const char *work;          /* scratch builds, one directory per student */
    int gpus[MAX_GPUS];
    size_t n_gpus;
    int jobs;
    int force;
    int keep_work;
    int course_build;          /* build the course once before the students */
    int no_sandbox;            /* grade even where student code cannot be sandboxed */
    uint64_t seed;
    int sanitize;
    double run_timeout, build_timeout;
    const char *only[MAX_ONLY];
    size_t n_only;
    int array_task;            /* internal: one Slurm array task */
    int slurm, wait, dry_run;
    double interval;           /* --wait: seconds between progress lines */
    struct slurm_opts sl;
};

/* Set by SIGINT / SIGTERM (Slurm's time limit): the engine kills the running child and the
 * student is left ungraded instead of half-graded. */
static volatile sig_atomic_t class_cancel;

static void on_signal(int sig)
{
    (void)sig;
    class_cancel = 1;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* ---------------------------------------------------------------- paths */
static char *path_join(const char *a, const char *b)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", a, b) < 0)
        return NULL;
    return p;
}

static char *absolute(const char *path)
{
    char *r = realpath(path, NULL);
    return r ? r : strdup(path);
}

static int mkdir_p(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* rm -rf of a scratch directory this program created */
static void remove_tree(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", "--", path, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

/* ---------------------------------------------------------------- students */
struct roster {
    char **names;
    size_t n;
};

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void roster_free(struct roster *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    r->names = NULL;
    r->n = 0;
}

static int roster_push(struct roster *r, const char *name)
{
    char **grown = realloc(r->names, (r->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    r->names = grown;
    if (!(r->names[r->n] = strdup(name)))
        return -1;
    r->n++;
    return 0;
}

/* Every directory of DIR not starting with '.', in byte order: the class list. A name with a
 * control character would break the CSV and the logs, so it is refused with a warning. */
static int roster_scan(const char *dir, struct roster *r)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *p = path_join(dir, e->d_name);
        int ok = p && is_dir(p);
        free(p);
        if (!ok)
            continue;
        int clean = 1;
        for (const unsigned char *c = (const unsigned char *)e->d_name; *c; c++)
            clean &= *c >= 0x20 && *c != 0x7f;
        if (!clean) {
            fprintf(stderr, "grader class: skipping a student directory whose name has control "
                            "characters\n");
            continue;
        }
        if (roster_push(r, e->d_name) != 0) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    qsort(r->names, r->n, sizeof *r->names, name_cmp);
    return 0;
}

/* ---------------------------------------------------------------- hashes */
/* The course key: everything that decides a grade besides the student's files. */
static int course_key(const struct class_opts *o, char *hex)
{
    static const char *const parts[] = { "lessons", "common", "solutions", "Makefile" };
    hash_sha256 s;
    hash_sha256_init(&s);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *p = path_join(o->root, parts[i]);
        int rc = p ? hash_tree(&s, parts[i], p) : -1;
        free(p);
        if (rc != 0)
            return -1;
    }
    /* the grading engine itself: a fixed grader regrades */
    char *exe = realpath("/proc/self/exe", NULL);
    int rc = exe ? hash_tree(&s, "grader", exe) : -1;
    free(exe);
    if (rc != 0)
        return -1;
    char opts[256];
    snprintf(opts, sizeof opts, "seed=%" PRIu64 " sanitize=%d run_timeout=%g build_timeout=%g",
             o->seed, o->sanitize, o->run_timeout, o->build_timeout);
    hash_sha256_update(&s, opts, strlen(opts));
    hash_sha256_final(&s, hex);
    return 0;
}

static int student_hash(const char *key, const char *class_dir, const char *name, char *hex)
{
    hash_sha256 s;
    hash_sha256_init(&s);
    hash_sha256_update(&s, key, strlen(key));
    char *ex = NULL;
    if (asprintf(&ex, "%s/%s/exercises", class_dir, name) < 0)
        return -1;
    int rc = hash_tree(&s, "exercises", ex);
    free(ex);
    if (rc != 0)
        return -1;
    hash_sha256_final(&s, hex);
    return 0;
}

/* Each student's inputs come from their own seed, so two students' outputs differ; the same
 * class seed and name always give the same seed, so a regrade is reproducible. */
static uint64_t student_seed(uint64_t class_seed, const char *name)
{
    char text[64 + 256], hex[HASH_HEX_LEN + 1];
    snprintf(text, sizeof text, "%" PRIu64 "/%s", class_seed, name);
    hash_sha256_hex(text, strlen(text), hex);
    char first[17];
    memcpy(first, hex, 16);
    first[16] = 0;
    /* harnesses take seeds as decimal integers; 53 bits survive any JSON reader too */
    return strtoull(first, NULL, 16) >> 11;
}

static char *results_path(const char *class_dir, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s/results.json", class_dir, name) < 0)
        return NULL;
    return p;
}

/* 1 when DIR/<name>/results.json was graded from exactly these files and this course. */
static int results_fresh(const char *class_dir, const char *name, const char *hash)
{
    char *path = results_path(class_dir, name);
    struct gb_student s;
    char err[256];
    gb_student_init(&s, name);
    int fresh = path && gb_results_read(path, &s, err, sizeof err) == 0 &&
                strcmp(s.hash, hash) == 0;
    gb_student_free(&s);
    free(path);
    return fresh;
}

/* ---------------------------------------------------------------- builds */
/* make -C root -k -j<cores> WORDS..., its output to log. Returns 0 when make succeeded. */
static int run_make(const char *root, char *const *words, size_t n_words, const char *log)
{
    char **argv = calloc(n_words + 7, sizeof *argv);
    char *jobs = NULL;
    if (!argv || asprintf(&jobs, "-j%ld", sysconf(_SC_NPROCESSORS_ONLN)) < 0) {
        free(argv);
        return -1;
    }
    size_t k = 0;
    argv[k++] = "make";
    argv[k++] = "--no-print-directory";
    argv[k++] = "-k";
    argv[k++] = "-C";
    argv[k++] = (char *)root;
    argv[k++] = jobs;
    for (size_t i = 0; i < n_words; i++)
        argv[k++] = words[i];
    int rc = -1;
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = fopen(log, "w");
        if (f) {
            dup2(fileno(f), 1);
            dup2(fileno(f), 2);
        }
        execvp("make", argv);
        _exit(127);
    }
    int status;
    if (pid > 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
    }
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
static int build_course(const struct class_opts *o, const struct course *c)
{
    size_t n = course_task_count(c), k = 0;
    char **words = calloc(n + 1, sizeof *words), *log = NULL;
    if (!words || asprintf(&log, "%s/course-build.log", o->work) < 0 ||
        asprintf(&words[k++], "BUILD=%s", o->build_dir) < 0) {
        free(words);
        free(log);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (asprintf(&words[k], "%s/solutions/%s", o->build_dir, task_id(course_task(c, i))) >= 0)
            k++;
    fprintf(stderr, "grader class: building the course once (log: %s)\n", log);
    int rc = run_make(o->root, words, k, log);
    if (rc != 0)
        fprintf(stderr, "grader class: the course does not build: see %s\n", log);
    free_words(words, k);
    free(log);
    return rc;
}

/* ---------------------------------------------------------------- one student */
/* The student's name as a path component make and shells take as one word: unsafe bytes
 * become '_' and a short hash of the real name keeps "a b" and "a_b" apart. */
static char *scratch_name(const char *name)
{
    char hex[HASH_HEX_LEN + 1];
    hash_sha256_hex(name, strlen(name), hex);
    char *out = NULL;
    if (asprintf(&out, "%s-%.8s", name, hex) < 0)
        return NULL;
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            *p = '_';
    return out;
}

/* What the student reads for one task: the engine's reason and the details behind it. */
static char *task_output(const struct task_result *r)
{
    struct gb_buf b = { 0 };
    enum grader_outcome oc = result_outcome(r);
    gb_buf_printf(&b, "%s", outcome_name(oc));
    if (result_reason(r)[0])
        gb_buf_printf(&b, ": %s", result_reason(r));
    gb_buf_puts(&b, "\n");
    if (result_case_count(r) > 0)
        gb_buf_printf(&b, "cases: %zu of %zu verified\n", result_cases_passed(r),
                      result_case_count(r));
    size_t shown = 0, failing = 0;
    for (size_t i = 0; i < result_case_count(r); i++) {
        const struct case_result *c = result_case(r, i);
        if (c->status != CASE_FAIL && c->status != CASE_ERROR)
            continue;
        /* the first few failing cases tell the story; the full record is in extra_data */
        if (failing++ >= 3)
            continue;
        shown++;
        gb_buf_printf(&b, "  %s: %s%s%s\n", c->name, case_status_name(c->status),
                      c->first_mismatch[0] ? ", first mismatch " : "", c->first_mismatch);
        if (c->note[0])
            gb_buf_printf(&b, "    %s\n", c->note);
    }
    if (failing > shown)
        gb_buf_printf(&b, "  ... and %zu more failing cases\n", failing - shown);
    if (result_speed_measured(r))
        gb_buf_printf(&b, "speed (%s): %.3g x the reference, threshold %.3g\n",
                      result_speed_case(r), result_speed_ratio(r), result_speed_threshold(r));
    for (size_t i = 0; i < result_diag_count(r) && i < 10; i++) {
        const struct compiler_diag *d = result_diag(r, i);
        gb_buf_printf(&b, "%s:%d: %s: %s\n", d->file, d->line, d->severity, d->text);
    }
    for (size_t i = 0; i < result_forbidden_count(r); i++)
        gb_buf_printf(&b, "forbidden symbol: %s\n", result_forbidden(r, i));
    for (size_t i = 0; i < result_finding_count(r) && i < 5; i++) {
        const struct sanitizer_finding *f = result_finding(r, i);
        gb_buf_printf(&b, "%s: %s", f->tool, f->kind);
        if (f->file[0])
            gb_buf_printf(&b, " at %s:%d", f->file, f->line);
        gb_buf_puts(&b, "\n");
    }
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

static void progress_quiet(void *user, const struct task *t, enum grade_step step,
                           const char *detail)
{
    (void)user; (void)t; (void)step; (void)detail;
}

/* Grades every task of the course for one student and writes their results.json.
 * 0: written; 1: cancelled (nothing written); -1: the results could not be written. */
static int grade_student(const struct class_opts *o, const struct course *c, const char *name,
                         const char *hash, int gpu)
{
    char *student_ex = NULL, *exdir = NULL, *exbuild = NULL, *safe = scratch_name(name);
    /* make splits words on spaces and reads quotes: it sees the student's files through a
     * link whose path has neither, whatever the student's directory is called */
    if (!safe || asprintf(&student_ex, "%s/%s/exercises", o->dir, name) < 0 ||
        asprintf(&exbuild, "%s/%s", o->work, safe) < 0 ||
        asprintf(&exdir, "%s/exercises-src", exbuild) < 0 || mkdir_p(exbuild) != 0 ||
        ((unlink(exdir) != 0 && errno != ENOENT) || symlink(student_ex, exdir) != 0)) {
        fprintf(stderr, "grader class: %s: cannot create the scratch directory under %s\n", name,
                o->work);
        free(student_ex);
        free(exdir);
        free(exbuild);
        free(safe);
        return -1;
    }
    free(safe);
    struct grade_opts g;
    grade_opts_init(&g);
    g.root = o->root;
    g.build_dir = o->build_dir;
    g.exercises_dir = exdir;
    g.exbuild_dir = exbuild;
    g.seed_set = 1;
    g.seed = student_seed(o->seed, name);
    g.sanitize = o->sanitize;
    g.gpu = gpu;
    if (o->run_timeout > 0)
        g.run_timeout_s = o->run_timeout;
    if (o->build_timeout > 0)
        g.build_timeout_s = o->build_timeout;
    g.progress = progress_quiet;
    g.cancel = &class_cancel;

    struct gb_student s;
    gb_student_init(&s, name);
    free(s.hash);
    s.hash = strdup(hash);
    s.seed = g.seed;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    for (size_t i = 0; i < course_task_count(c) && rc == 0; i++) {
        const struct task *t = course_task(c, i);
        char *file = NULL;
        if (asprintf(&file, "%s/%s.cu", exdir, task_id(t)) < 0) {
            rc = -1;
            break;
        }
        int submitted = is_file(file);
        free(file);
        if (!submitted) {
            rc = gb_student_add_task(&s, task_id(t), task_title(t), 0, task_weight(t),
                                     GB_NOT_SUBMITTED, "not submitted", NULL);
            continue;
        }
        struct task_result *r = grade_task(t, &g);
        if (!r) {
            rc = -1;
            break;
        }
        if (class_cancel) {
            task_result_free(r);
            rc = 1;
            break;
        }
        char *out = task_output(r);
        rc = gb_student_add_task(&s, task_id(t), task_title(t), result_score(r),
                                 result_max_score(r), outcome_key(result_outcome(r)),
                                 out ? out : result_reason(r), result_to_json(r));
        free(out);
        task_result_free(r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s.execution_time = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    s.graded_at = (int64_t)time(NULL);
    if (rc == 0) {
        char *path = results_path(o->dir, name);
        if (!path || gb_results_write(path, &s) != 0) {
            fprintf(stderr, "grader class: %s: cannot write results.json: %s\n", name,
                    strerror(errno));
            rc = -1;
        }
        free(path);
    }
    gb_student_free(&s);
    if (!o->keep_work)
        remove_tree(exbuild);
    free(student_ex);
    free(exdir);
    free(exbuild);
    return rc;
}

/* ---------------------------------------------------------------- merging */
/* Reads every student's results into a book whose columns are the course's tasks; a
 * student's status compares their stored hash with the one their files have now (hashes
 * NULL: everything present counts as graded). Returns how many are not "graded". */
static size_t merge_book(const struct course *c, const char *class_dir, const struct roster *r,
                         char *const *hashes, struct gb_book *b)
{
    size_t missing = 0;
    gb_book_init(b);
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        gb_book_add_column(b, task_id(t), task_title(t), task_weight(t));
    }
    for (size_t i = 0; i < r->n; i++) {
        char *path = results_path(class_dir, r->names[i]);
        struct gb_student s;
        char err[256];
        gb_student_init(&s, r->names[i]);
        if (path && gb_results_read(path, &s, err, sizeof err) == 0) {
            const char *status = !hashes || strcmp(s.hash, hashes[i]) == 0 ? "graded" : "stale";
            missing += strcmp(status, "graded") != 0;
            gb_book_add(b, r->names[i], &s, status);
        } else {
            if (path && errno != ENOENT)
                fprintf(stderr, "grader: %s: %s\n", r->names[i], err);
            gb_student_free(&s);
            gb_book_add(b, r->names[i], NULL, "pending");
            missing++;
        }
        free(path);
    }
    return missing;
}

/* 77 (session.h) when every task of every graded student was skipped, else 0. */
static int book_all_skipped(const struct gb_book *b)
{
    size_t graded = 0, skipped = 0;
    for (size_t i = 0; i < b->n_rows; i++)
        for (size_t k = 0; b->rows[i].graded && k < b->rows[i].student.n_tasks; k++) {
            graded++;
            skipped += strcmp(b->rows[i].student.tasks[k].outcome, "skipped") == 0;
        }
    return graded && skipped == graded ? GRADER_EXIT_SKIPPED : 0;
}

static int write_book(const struct course *c, const char *class_dir, const struct roster *r,
                      char *const *hashes, size_t *missing, int *skipped)
{
    struct gb_book b;
    *missing = merge_book(c, class_dir, r, hashes, &b);
    *skipped = book_all_skipped(&b);
    int rc = gb_book_write(&b, class_dir);
    if (rc != 0)
        fprintf(stderr, "grader: cannot write %s/gradebook.csv: %s\n", class_dir, strerror(errno));
    gb_book_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- the local pool */
static void print_done(const struct class_opts *o, const char *name, size_t k, size_t n,
                       int gpu, double secs)
{
    char *path = results_path(o->dir, name);
    struct gb_student s;
    char err[256];
    gb_student_init(&s, name);
    if (path && gb_results_read(path, &s, err, sizeof err) == 0) {
        size_t passed = 0;
        for (size_t i = 0; i < s.n_tasks; i++)
            passed += strcmp(s.tasks[i].outcome, "passed") == 0;
        printf("[%zu/%zu] %-20s %zu of %zu passed, %g of %g points  (%.1f s", k, n, name, passed,
               s.n_tasks, gb_student_score(&s), gb_student_max(&s), secs);
        if (gpu >= 0)
            printf(", GPU %d", gpu);
        printf(")\n");
    }
    fflush(stdout);
    gb_student_free(&s);
    free(path);
}

/* Grades `todo` (indices into the roster) with one child process per slot: a slot is a GPU
 * from --gpus, else one of --jobs. Returns how many could not be graded. */
static size_t run_pool(const struct class_opts *o, const struct course *c, const struct roster *r,
                       char *const *hashes, const size_t *todo, size_t n_todo)
{
    size_t slots = o->n_gpus ? o->n_gpus : (size_t)o->jobs;
    pid_t *pid = calloc(slots, sizeof *pid);
    size_t *who = calloc(slots, sizeof *who);
    double *started = calloc(slots, sizeof *started);
    size_t next = 0, running = 0, done = 0, failed = 0;
    if (!pid || !who || !started) {
        free(pid); free(who); free(started);
        return n_todo;
    }
    while (next < n_todo || running > 0) {
        for (size_t s = 0; s < slots && next < n_todo && !class_cancel; s++) {
            if (pid[s] > 0)
                continue;
            int gpu = o->n_gpus ? o->gpus[s] : -1;
            size_t i = todo[next++];
            fflush(stdout);
            fflush(stderr);
            pid_t p = fork();
            if (p == 0) {
                int rc = grade_student(o, c, r->names[i], hashes[i], gpu);
                fflush(stdout);
                _exit(rc == 0 ? 0 : rc == 1 ? 3 : 1);
            }
            if (p < 0) {
                fprintf(stderr, "grader class: fork: %s\n", strerror(errno));
                failed++;
                continue;
            }
            pid[s] = p;
            who[s] = i;
            started[s] = now_s();
            running++;
        }
        if (running == 0)
            break;
        int status;
        pid_t p = wait(&status);
        if (p < 0) {
            if (errno != EINTR)
                break;
            /* a signal sent to this process alone (timeout(1), Slurm) reaches the children
             * too: each stops its grading and leaves that student ungraded */
            for (size_t s = 0; class_cancel && s < slots; s++)
                if (pid[s] > 0)
                    kill(pid[s], SIGINT);
            continue;
        }
        for (size_t s = 0; s < slots; s++) {
            if (pid[s] != p)
                continue;
            pid[s] = 0;
            running--;
            done++;
            const char *name = r->names[who[s]];
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
                print_done(o, name, done, n_todo, o->n_gpus ? o->gpus[s] : -1,
                           now_s() - started[s]);
            } else {
                failed++;
                if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
                    printf("[%zu/%zu] %-20s interrupted: not graded\n", done, n_todo, name);
                else if (WIFSIGNALED(status))
                    printf("[%zu/%zu] %-20s not graded: the grading process was killed by "
                           "signal %d\n", done, n_todo, name, WTERMSIG(status));
                else
                    printf("[%zu/%zu] %-20s not graded: the grading process failed\n", done,
                           n_todo, name);
                fflush(stdout);
            }
        }
    }
    failed += n_todo - next;
    free(pid);
    free(who);
    free(started);
    return failed;
}

/* ---------------------------------------------------------------- options */
static void usage(FILE *f)
{
    fprintf(f,
        "usage: grader class DIR [options]     grade every DIR/<student>/exercises\n"
        "       grader collect DIR [--course ROOT] [--wait] [--interval S]\n"
        "\n"
        "  --course ROOT      the course (Makefile, lessons/, solutions/); default .\n"
        "  --build DIR        the course's build directory; default build\n"
        "  --work DIR         scratch builds, one directory per student;\n"
        "                     default $TMPDIR/grader-class-<uid>/<class hash>\n"
        "  --gpus 0,1,...     one student per GPU at a time (CUDA_VISIBLE_DEVICES per child)\n"
        "  --jobs N           students at once without --gpus (default 1)\n"
        "  --seed N           class seed; each student's seed derives from it (default 1)\n"
        "  --timeout S        wall-clock limit of each run of student code\n"
        "  --build-timeout S  limit of each student's build\n"
        "  --no-sanitize      skip compute-sanitizer\n"
        "  --force            regrade students whose results are up to date\n"
        "  --only NAME        grade only this student (repeatable)\n"
        "  --keep-work        keep the scratch builds\n"
        "  --no-course-build  the course is built already: do not run make for it first\n"
        "  --no-sandbox       grade even where bubblewrap cannot sandbox student code\n"
        "\n"
        "  --slurm            submit an sbatch job array instead of grading here\n"
        "  --chunk N          students per array task (default 1)\n"
        "  --time T  --mem M  --cpus N  --gres G  --partition P  --account A\n"
        "                     per array task (defaults: 30 min, 16G, 4, gpu:1)\n"
        "  --max-parallel N   at most N array tasks at once\n"
        "  --sbatch-arg OPT   one more #SBATCH option, verbatim (repeatable)\n"
        "  --dry-run          write the job script, do not submit it\n"
        "  --wait             after submitting, report progress until the job is done, then\n"
        "                     collect (also for collect); --interval S between reports\n");
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int parse_pos_double(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

static int parse_gpus(const char *s, struct class_opts *o)
{
    o->n_gpus = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 1024 || o->n_gpus == MAX_GPUS || (*end && *end != ','))
            return -1;
        o->gpus[o->n_gpus++] = (int)v;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            return -1;
    }
    return o->n_gpus ? 0 : -1;
}

/* 0: parsed; 2: usage error (message printed); 1: --help printed */
static int parse_args(int argc, char **argv, struct class_opts *o, int collect)
{
    memset(o, 0, sizeof *o);
    o->root = ".";
    o->build_dir = "build";
    o->jobs = 1;
    o->seed = 1;
    o->sanitize = 1;
    o->course_build = 1;
    o->interval = 10;
    slurm_opts_init(&o->sl);
    const char *cmd = collect ? "collect" : "class";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0, takes = 1;
#define OPT(name) (strcmp(a, name) == 0)
        if (OPT("--help") || OPT("-h")) {
            usage(stdout);
            return 1;
        } else if (OPT("--course")) o->root = v;
        else if (OPT("--wait")) { o->wait = 1; takes = 0; }
        else if (OPT("--interval")) bad = !v || parse_pos_double(v, &o->interval);
        else if (collect && a[0] == '-') { fprintf(stderr, "grader collect: unknown option %s "
                                                   "(see grader class --help)\n", a); return 2; }
        else if (OPT("--build")) o->build_dir = v;
        else if (OPT("--work")) o->work = v;
        else if (OPT("--gpus")) bad = !v || parse_gpus(v, o);
        else if (OPT("--jobs")) {
            uint64_t n;
            bad = !v || parse_u64(v, &n) || n < 1 || n > 1024;
            o->jobs = bad ? 1 : (int)n;
        } else if (OPT("--seed")) bad = !v || parse_u64(v, &o->seed);
        else if (OPT("--timeout")) bad = !v || parse_pos_double(v, &o->run_timeout);
        else if (OPT("--build-timeout")) bad = !v || parse_pos_double(v, &o->build_timeout);
        else if (OPT("--no-sanitize")) { o->sanitize = 0; takes = 0; }
        else if (OPT("--force")) { o->force = 1; takes = 0; }
        else if (OPT("--keep-work")) { o->keep_work = 1; takes = 0; }
        else if (OPT("--no-course-build")) { o->course_build = 0; takes = 0; }
        else if (OPT("--no-sandbox")) { o->no_sandbox = 1; takes = 0; }
        else if (OPT("--array-task")) { o->array_task = 1; takes = 0; }
        else if (OPT("--only")) {
            bad = !v || o->n_only == MAX_ONLY;
            if (!bad)
                o->only[o->n_only++] = v;
        } else if (OPT("--slurm")) { o->slurm = 1; takes = 0; }
        else if (OPT("--dry-run")) { o->dry_run = 1; takes = 0; }
        else if (OPT("--chunk")) {
            uint64_t n;
            bad = !v || parse_u64(v, &n) || n < 1;
            o->sl.chunk = bad ? 1 : (size_t)n;
        } else if (OPT("--max-parallel")) {
            uint64_t n;
            bad = !v || parse_u64(v, &n) || n < 1;
            o->sl.max_parallel = bad ? 0 : (size_t)n;
        } else if (OPT("--time")) o->sl.time = v;
        else if (OPT("--mem")) o->sl.mem = v;
        else if (OPT("--cpus")) o->sl.cpus = v;
        else if (OPT("--gres")) o->sl.gres = v;
        else if (OPT("--partition")) o->sl.partition = v;
        else if (OPT("--account")) o->sl.account = v;
        else if (OPT("--sbatch-arg")) {
            bad = !v || o->sl.n_extra == sizeof o->sl.extra / sizeof o->sl.extra[0];
            if (!bad)
                o->sl.extra[o->sl.n_extra++] = v;
        } else if (a[0] == '-') {
            fprintf(stderr, "grader %s: unknown option %s (see --help)\n", cmd, a);
            return 2;
        } else if (!o->dir) {
            o->dir = a;
            takes = 0;
        } else {
            fprintf(stderr, "grader %s: one class directory only (got %s and %s)\n", cmd,
                    o->dir, a);
            return 2;
        }
#undef OPT
        if (takes && !v) {
            fprintf(stderr, "grader %s: %s needs a value\n", cmd, a);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "grader %s: bad value for %s: %s\n", cmd, a, v);
            return 2;
        }
        i += takes;
    }
    if (!o->dir) {
        fprintf(stderr, "grader %s: no class directory given (usage: grader %s DIR)\n", cmd, cmd);
        return 2;
    }
    if (!is_dir(o->dir)) {
        fprintf(stderr, "grader %s: %s is not a directory\n", cmd, o->dir);
        return 2;
    }
    if (o->slurm && o->n_gpus) {
        fprintf(stderr, "grader class: --gpus and --slurm exclude each other (Slurm assigns "
                        "the GPUs)\n");
        return 2;
    }
    return 0;
}

/* Absolute directories, so children, make and Slurm jobs all see the same paths. */
static int resolve_paths(struct class_opts *o, char **keep)
{
    keep[0] = absolute(o->dir);
    keep[1] = absolute(o->root);
    o->dir = keep[0];
    o->root = keep[1];
    if (!o->work) {
        char hex[HASH_HEX_LEN + 1];
        hash_sha256_hex(o->dir, strlen(o->dir), hex);
        hex[12] = 0;
        const char *tmp = getenv("TMPDIR");
        if (asprintf(&keep[2], "%s/grader-class-%ld/%s", tmp && tmp[0] ? tmp : "/tmp",
                     (long)getuid(), hex) < 0)
            return -1;
        o->work = keep[2];
    } else {
        keep[2] = absolute(o->work);
        o->work = keep[2];
    }
    return o->dir && o->root && o->work ? 0 : -1;
}

/* ---------------------------------------------------------------- the Slurm job's record */
struct job_record {
    char id[32];
    char key[HASH_HEX_LEN + 1];
    size_t chunk;
    struct roster students;    /* the ones the job grades, in array order */
};

static char *slurm_dir(const char *class_dir)
{
    return path_join(class_dir, ".grader/slurm");
}

static int job_write(const char *class_dir, const struct job_record *j, const char *root)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "job", j->id);
    cJSON_AddStringToObject(o, "course_key", j->key);
    cJSON_AddStringToObject(o, "course", root);
    cJSON_AddNumberToObject(o, "chunk", (double)j->chunk);
    cJSON_AddNumberToObject(o, "submitted_at", (double)time(NULL));
    cJSON *a = cJSON_AddArrayToObject(o, "students");
    for (size_t i = 0; i < j->students.n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(j->students.names[i]));
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    char *dir = slurm_dir(class_dir), *path = dir ? path_join(dir, "job.json") : NULL;
    int rc = text && path ? gb_write_atomic(path, text, strlen(text)) : -1;
    free(text);
    free(dir);
    free(path);
    return rc;
}

/* 0, or -1 when DIR has no readable job record (err says why). root: malloc'd when stored. */
static int job_read(const char *class_dir, struct job_record *j, char **root, char *err,
                    size_t errlen)
{
    memset(j, 0, sizeof *j);
    char *dir = slurm_dir(class_dir), *path = dir ? path_join(dir, "job.json") : NULL;
    char *text = path ? gb_read_file(path, NULL) : NULL;
    int rc = -1;
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "job");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(o, "course_key");
    const cJSON *course = cJSON_GetObjectItemCaseSensitive(o, "course");
    const cJSON *chunk = cJSON_GetObjectItemCaseSensitive(o, "chunk");
    const cJSON *students = cJSON_GetObjectItemCaseSensitive(o, "students");
    if (!text)
        snprintf(err, errlen, "no Slurm job recorded (%s)", path ? path : class_dir);
    else if (!cJSON_IsString(id) || !cJSON_IsString(key) || !cJSON_IsNumber(chunk) ||
             !cJSON_IsArray(students) || strlen(key->valuestring) != HASH_HEX_LEN)
        snprintf(err, errlen, "%s is not a job record of this grader", path);
    else {
        snprintf(j->id, sizeof j->id, "%s", id->valuestring);
        memcpy(j->key, key->valuestring, HASH_HEX_LEN + 1);
        j->chunk = chunk->valuedouble >= 1 ? (size_t)chunk->valuedouble : 1;
        const cJSON *s;
        rc = 0;
        cJSON_ArrayForEach(s, students)
            if (!cJSON_IsString(s) || roster_push(&j->students, s->valuestring) != 0)
                rc = -1;
        if (root && cJSON_IsString(course))
            *root = strdup(course->valuestring);
        if (rc != 0)
            snprintf(err, errlen, "%s: bad student list", path);
    }
    cJSON_Delete(o);
    free(text);
    free(dir);
    free(path);
    return rc;
}

/* ---------------------------------------------------------------- shared set-up */
struct class_run {
    struct class_opts o;
    char *paths[3];
    struct course *course;
    struct roster roster;      /* every student of the class */
    char **hashes;             /* per roster entry */
    char key[HASH_HEX_LEN + 1];
};

static void class_run_free(struct class_run *cr)
{
    for (size_t i = 0; cr->hashes && i < cr->roster.n; i++)
        free(cr->hashes[i]);
    free(cr->hashes);
    roster_free(&cr->roster);
    if (cr->course)
        course_free(cr->course);
    for (size_t i = 0; i < 3; i++)
        free(cr->paths[i]);
}

/* Loads the course and the class, and hashes every student against `key`. 0 or exit status. */
static int class_setup(struct class_run *cr)
{
    struct class_opts *o = &cr->o;
    if (resolve_paths(o, cr->paths) != 0) {
        fprintf(stderr, "grader: out of memory\n");
        return 2;
    }
    cr->course = course_load(o->root);
    if (!cr->course || course_task_count(cr->course) == 0) {
        fprintf(stderr, "grader: no tasks in the course at %s (lessons/*/lesson.ini)\n", o->root);
        for (size_t i = 0; cr->course && i < course_error_count(cr->course); i++)
            fprintf(stderr, "  %s\n", course_error(cr->course, i));
        return 2;
    }
    if (roster_scan(o->dir, &cr->roster) != 0) {
        fprintf(stderr, "grader: cannot read %s: %s\n", o->dir, strerror(errno));
        return 2;
    }
    return 0;
}

static int hash_students(struct class_run *cr)
{
    cr->hashes = calloc(cr->roster.n + 1, sizeof *cr->hashes);
    if (!cr->hashes)
        return -1;
    for (size_t i = 0; i < cr->roster.n; i++) {
        char hex[HASH_HEX_LEN + 1];
        if (student_hash(cr->key, cr->o.dir, cr->roster.names[i], hex) != 0) {
            fprintf(stderr, "grader: %s: cannot read the student's files: %s\n",
                    cr->roster.names[i], strerror(errno));
            /* unreadable files never match a stored hash: the student is regraded */
            snprintf(hex, sizeof hex, "unreadable");
        }
        if (!(cr->hashes[i] = strdup(hex)))
            return -1;
    }
    return 0;
}

static int selected(const struct class_opts *o, const char *name)
{
    if (o->n_only == 0)
        return 1;
    for (size_t i = 0; i < o->n_only; i++)
        if (strcmp(o->only[i], name) == 0)
            return 1;
    return 0;
}

/* Indices of the students to grade: selected, and not fresh unless --force. */
static size_t *stale_students(const struct class_run *cr, size_t *n)
{
    size_t *todo = calloc(cr->roster.n + 1, sizeof *todo);
    *n = 0;
    for (size_t i = 0; todo && i < cr->roster.n; i++) {
        const char *name = cr->roster.names[i];
        if (!selected(&cr->o, name))
            continue;
        if (!cr->o.force && results_fresh(cr->o.dir, name, cr->hashes[i]))
            continue;
        todo[(*n)++] = i;
    }
    return todo;
}

static size_t count_fresh(const struct class_run *cr)
{
    size_t n = 0;
    for (size_t i = 0; i < cr->roster.n; i++)
        n += results_fresh(cr->o.dir, cr->roster.names[i], cr->hashes[i]);
    return n;
}

/* ---------------------------------------------------------------- one array task */
static int array_task(struct class_run *cr)
{
    struct job_record j;
    char err[512];
    if (job_read(cr->o.dir, &j, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "grader class --array-task: %s\n", err);
        return 1;
    }
    const char *idx = getenv("SLURM_ARRAY_TASK_ID");
    uint64_t k;
    if (!idx || parse_u64(idx, &k) != 0) {
        fprintf(stderr, "grader class --array-task: SLURM_ARRAY_TASK_ID is not set\n");
        roster_free(&j.students);
        return 2;
    }
    int rc = 0;
    size_t first = (size_t)k * j.chunk;
    for (size_t i = first; i < first + j.chunk && i < j.students.n && !class_cancel; i++) {
        const char *name = j.students.names[i];
        char hex[HASH_HEX_LEN + 1];
        if (student_hash(j.key, cr->o.dir, name, hex) != 0) {
            fprintf(stderr, "%s: cannot read the student's files\n", name);
            rc = 1;
            continue;
        }
        double t0 = now_s();
        printf("grading %s (seed %" PRIu64 ")\n", name, student_seed(cr->o.seed, name));
        fflush(stdout);
        int g = grade_student(&cr->o, cr->course, name, hex, -1);
        if (g == 0)
            print_done(&cr->o, name, i - first + 1, j.chunk, -1, now_s() - t0);
        else
            rc = 1;
    }
    roster_free(&j.students);
    return class_cancel ? 1 : rc;
}

/* ---------------------------------------------------------------- submission */
static void add_arg(char **argv, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_arg(char **argv, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&argv[*n], fmt, ap) >= 0)
        (*n)++;
    va_end(ap);
}

static int wait_and_collect(struct class_run *cr, const struct job_record *j);

static int submit(struct class_run *cr, const size_t *todo, size_t n_todo)
{
    const struct class_opts *o = &cr->o;
    struct job_record j;
    memset(&j, 0, sizeof j);
    memcpy(j.key, cr->key, sizeof j.key);
    j.chunk = o->sl.chunk;
    for (size_t i = 0; i < n_todo; i++)
        if (roster_push(&j.students, cr->roster.names[todo[i]]) != 0)
            return 1;
    char *dir = slurm_dir(o->dir), *logs = dir ? path_join(dir, "logs") : NULL;
    char *script_path = dir ? path_join(dir, "job.sh") : NULL;
    char *exe = realpath("/proc/self/exe", NULL);
    int rc = 1;
    if (!logs || !script_path || !exe || mkdir_p(logs) != 0) {
        fprintf(stderr, "grader class: cannot create %s\n", logs ? logs : o->dir);
        goto out;
    }
    char *argv[32];
    size_t argc = 0;
    add_arg(argv, &argc, "%s", exe);
    add_arg(argv, &argc, "class");
    add_arg(argv, &argc, "%s", o->dir);
    add_arg(argv, &argc, "--array-task");
    add_arg(argv, &argc, "--course");
    add_arg(argv, &argc, "%s", o->root);
    add_arg(argv, &argc, "--build");
    add_arg(argv, &argc, "%s", o->build_dir);
    add_arg(argv, &argc, "--seed");
    add_arg(argv, &argc, "%" PRIu64, o->seed);
    if (!o->sanitize)
        add_arg(argv, &argc, "--no-sanitize");
    if (o->run_timeout > 0) {
        add_arg(argv, &argc, "--timeout");
        add_arg(argv, &argc, "%g", o->run_timeout);
    }
    if (o->build_timeout > 0) {
        add_arg(argv, &argc, "--build-timeout");
        add_arg(argv, &argc, "%g", o->build_timeout);
    }
    /* --work only when given: the default resolves under the node's own TMPDIR */
    if (o->keep_work)
        add_arg(argv, &argc, "--keep-work");
    size_t n_array = (n_todo + o->sl.chunk - 1) / o->sl.chunk;
    char *script = slurm_script(&o->sl, "grader-class", n_array, logs, o->root,
                                (const char *const *)argv, argc);
    for (size_t i = 0; i < argc; i++)
        free(argv[i]);
    if (!script) {
        fprintf(stderr, "grader class: an sbatch option value is empty or has white space\n");
        rc = 2;
        goto out;
    }
    int wrote = gb_write_atomic(script_path, script, strlen(script));
    free(script);
    if (wrote != 0 || chmod(script_path, 0755) != 0) {
        fprintf(stderr, "grader class: cannot write %s: %s\n", script_path, strerror(errno));
        goto out;
    }
    if (o->dry_run) {
        printf("wrote %s: %zu students in %zu array tasks (not submitted: --dry-run)\n",
               script_path, n_todo, n_array);
        rc = 0;
        goto out;
    }
    char err[4200];
    if (slurm_submit(script_path, j.id, sizeof j.id, err, sizeof err) != 0) {
        fprintf(stderr, "grader class: %s\n", err);
        goto out;
    }
    if (job_write(o->dir, &j, o->root) != 0) {
        fprintf(stderr, "grader class: cannot record job %s in %s: %s\n", j.id, dir,
                strerror(errno));
        goto out;
    }
    printf("submitted job %s: %zu students in %zu array tasks (script %s, logs %s)\n"
           "progress and merge: grader collect %s\n", j.id, n_todo, n_array, script_path, logs,
           o->dir);
    fflush(stdout);
    rc = o->wait ? wait_and_collect(cr, &j) : 0;
out:
    roster_free(&j.students);
    free(dir);
    free(logs);
    free(script_path);
    free(exe);
    return rc;
}

/* ---------------------------------------------------------------- collecting */
/* Progress now: the queue's states and how many of the job's students have fresh results. */
static int progress_line(const struct class_run *cr, const struct job_record *j)
{
    struct slurm_progress p;
    slurm_query(j->id, &p);
    size_t finished = 0;
    for (size_t i = 0; i < j->students.n; i++) {
        char hex[HASH_HEX_LEN + 1];
        finished += student_hash(j->key, cr->o.dir, j->students.names[i], hex) == 0 &&
                    results_fresh(cr->o.dir, j->students.names[i], hex);
    }
    printf("job %s: %s; %zu of %zu students graded\n", j->id, p.line, finished, j->students.n);
    fflush(stdout);
    return p.queried && p.pending + p.running + p.completing + p.other > 0;
}

/* Merges what finished; lists what did not. 0 when every student is graded. */
static int collect_now(struct class_run *cr, const struct job_record *j)
{
    size_t missing = 0;
    int skipped = 0;
    if (write_book(cr->course, cr->o.dir, &cr->roster, cr->hashes, &missing, &skipped) != 0)
        return 1;
    size_t n = cr->roster.n;
    printf("gradebook: %s/gradebook.csv, %s/junit.xml (%zu of %zu students graded)\n",
           cr->o.dir, cr->o.dir, n - missing, n);
    for (size_t i = 0; i < n; i++) {
        const char *name = cr->roster.names[i];
        if (results_fresh(cr->o.dir, name, cr->hashes[i]))
            continue;
        char *path = results_path(cr->o.dir, name);
        const char *what = path && is_file(path) ? "stale (graded from other files)"
                                                 : "not graded";
        free(path);
        size_t at = SIZE_MAX;
        for (size_t k = 0; j && k < j->students.n; k++)
            if (strcmp(j->students.names[k], name) == 0)
                at = k;
        if (at != SIZE_MAX)
            printf("  %-20s %s: array task %zu of job %s, log %s/.grader/slurm/logs/%s_%zu.out\n",
                   name, what, at / j->chunk, j->id, cr->o.dir, j->id, at / j->chunk);
        else
            printf("  %-20s %s\n", name, what);
    }
    fflush(stdout);
    return missing ? 1 : skipped;
}

static int wait_and_collect(struct class_run *cr, const struct job_record *j)
{
    while (progress_line(cr, j) && !class_cancel) {
        struct timespec ts = { (time_t)cr->o.interval,
                               (long)((cr->o.interval - (double)(time_t)cr->o.interval) * 1e9) };
        nanosleep(&ts, NULL);
    }
    return collect_now(cr, j);
}

/* ---------------------------------------------------------------- entry points */
int class_main(int argc, char **argv)
{
    struct class_run cr;
    memset(&cr, 0, sizeof cr);
    int rc = parse_args(argc, argv, &cr.o, 0);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    if (sandbox_unavailable() && !cr.o.no_sandbox) {
        fprintf(stderr, "grader class: refusing to grade: %s (--no-sandbox grades anyway)\n",
                sandbox_unavailable());
        return 1;
    }
    install_signals();
    rc = class_setup(&cr);
    if (rc != 0)
        goto out;
    if (cr.o.array_task) {
        rc = array_task(&cr);
        goto out;
    }
    if (mkdir_p(cr.o.work) != 0) {
        fprintf(stderr, "grader class: cannot create %s: %s\n", cr.o.work, strerror(errno));
        rc = 2;
        goto out;
    }
    if (course_key(&cr.o, cr.key) != 0 || hash_students(&cr) != 0) {
        fprintf(stderr, "grader class: cannot hash the course at %s: %s\n", cr.o.root,
                strerror(errno));
        rc = 1;
        goto out;
    }
    size_t n_todo;
    size_t *todo = stale_students(&cr, &n_todo);
    if (!todo) {
        rc = 1;
        goto out;
    }
    printf("class %s: %zu students, %zu tasks each; %zu to grade, %zu up to date\n", cr.o.dir,
           cr.roster.n, course_task_count(cr.course), n_todo, count_fresh(&cr));
    fflush(stdout);
    if (n_todo > 0 && cr.o.course_build && build_course(&cr.o, cr.course) != 0) {
        free(todo);
        rc = 1;
        goto out;
    }
    if (cr.o.slurm) {
        rc = n_todo ? submit(&cr, todo, n_todo) : collect_now(&cr, NULL);
        free(todo);
        goto out;
    }
    double t0 = now_s();
    size_t failed = n_todo ? run_pool(&cr.o, cr.course, &cr.roster, cr.hashes, todo, n_todo) : 0;
    double secs = now_s() - t0;
    free(todo);
    if (n_todo > failed)
        printf("graded %zu students in %.1f s: %.2f students per minute\n", n_todo - failed,
               secs, 60.0 * (double)(n_todo - failed) / secs);
    rc = collect_now(&cr, NULL);
    if (class_cancel)
        rc = 130;
out:
    class_run_free(&cr);
    return rc;
}

int collect_main(int argc, char **argv)
{
    struct class_run cr;
    memset(&cr, 0, sizeof cr);
    int rc = parse_args(argc, argv, &cr.o, 1);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    install_signals();
    struct job_record j;
    char err[512], *stored_root = NULL;
    int have_job = job_read(cr.o.dir, &j, &stored_root, err, sizeof err) == 0;
    int root_given = 0;
    for (int i = 1; i < argc; i++)
        root_given |= strcmp(argv[i], "--course") == 0;
    if (have_job && stored_root && !root_given)
        cr.o.root = stored_root;
    rc = class_setup(&cr);
    if (rc == 0 && have_job) {
        memcpy(cr.key, j.key, sizeof cr.key);
        if (hash_students(&cr) != 0)
            rc = 1;
        else if (cr.o.wait)
            rc = wait_and_collect(&cr, &j);
        else {
            progress_line(&cr, &j);
            rc = collect_now(&cr, &j);
        }
    } else if (rc == 0) {
        /* graded locally: no key recorded, so whatever results exist are taken as they are */
        printf("%s; merging the results present\n", err);
        size_t missing = 0;
        int skipped = 0;
        rc = write_book(cr.course, cr.o.dir, &cr.roster, NULL, &missing, &skipped) != 0 ? 1
             : missing ? 1 : skipped;
        printf("gradebook: %s/gradebook.csv (%zu of %zu students have results)\n", cr.o.dir,
               cr.roster.n - missing, cr.roster.n);
    }
    if (have_job)
        roster_free(&j.students);
    class_run_free(&cr);
    free(stored_root);
    return rc;
}

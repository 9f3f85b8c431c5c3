/* tui_jobs.c — grading without freezing the screen, and watch mode.
 *
 * One worker thread grades the queued tasks one after the other (the GPU is one shared
 * resource: two gradings at once would time each other). It only reads the course; a
 * finished result is handed back through a list and a byte on a pipe, and the loop's thread
 * gives it to the task, so the model is written by one thread only and the screen never
 * reads a result that is being replaced.
 *
 * Watch mode: inotify on the directories of the exercise files (editors often save by
 * writing a new file and renaming it over the old one, which a watch on the file itself
 * would lose). A save whose content hashes like the last one queued is ignored, so an editor
 * that writes twice per save grades once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "tui_screen.h"

#define NO_TASK ((size_t)-1)

struct done {
    size_t task;
    struct task_result *result;   /* NULL when the grading was cancelled */
    struct done *next;
};

struct tui_jobs {
    const struct course *course;
    struct grade_opts grade;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake_worker;
    int pipe_rd, pipe_wr;

    /* Guarded by lock. */
    size_t *queue;
    size_t n_queued, cap;
    size_t running;               /* NO_TASK when idle */
    enum grade_step step;
    char detail[128];
    double started;               /* monotonic seconds */
    struct done *done_head, *done_tail;
    int stopping;

    /* Read by grade_task while a child runs; written by the loop's thread. */
    volatile sig_atomic_t cancel;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void poke(struct tui_jobs *j)
{
    char b = 1;
    /* A full pipe already holds a wake-up the loop has not read: losing this one is fine. */
    ssize_t w = write(j->pipe_wr, &b, 1);
    (void)w;
}

static void on_progress(void *user, const struct task *t, enum grade_step step,
                        const char *detail)
{
    struct tui_jobs *j = user;
    (void)t;
    pthread_mutex_lock(&j->lock);
    j->step = step;
    snprintf(j->detail, sizeof j->detail, "%s", detail ? detail : "");
    pthread_mutex_unlock(&j->lock);
    poke(j);
}

static void *worker(void *arg)
{
    struct tui_jobs *j = arg;
    pthread_mutex_lock(&j->lock);
    for (;;) {
        while (!j->stopping && j->n_queued == 0)
            pthread_cond_wait(&j->wake_worker, &j->lock);
        if (j->stopping)
            break;
        size_t task = j->queue[0];
        memmove(j->queue, j->queue + 1, --j->n_queued * sizeof *j->queue);
        j->running = task;
        j->step = GRADE_STEP_BUILD;
        j->detail[0] = '\0';
        j->started = now_s();
        j->cancel = 0;
        pthread_mutex_unlock(&j->lock);
        poke(j);

        struct task_result *r = grade_task(course_task(j->course, task), &j->grade);

        struct done *d = calloc(1, sizeof *d);
        pthread_mutex_lock(&j->lock);
        if (j->cancel && r) {
            task_result_free(r);
            r = NULL;
        }
        if (d) {
            d->task = task;
            d->result = r;
            if (j->done_tail)
                j->done_tail->next = d;
            else
                j->done_head = d;
            j->done_tail = d;
        } else if (r) {
            task_result_free(r);
        }
        j->running = NO_TASK;
        pthread_mutex_unlock(&j->lock);
        poke(j);
        pthread_mutex_lock(&j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

struct tui_jobs *tui_jobs_start(struct tui *ui)
{
    struct tui_jobs *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
        free(j);
        return NULL;
    }
    j->pipe_rd = p[0];
    j->pipe_wr = p[1];
    j->course = ui->course;
    j->grade = ui->opts->grade;
    j->grade.progress = on_progress;
    j->grade.progress_user = j;
    j->grade.cancel = &j->cancel;
    j->running = NO_TASK;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->wake_worker, NULL);
    if (pthread_create(&j->thread, NULL, worker, j) != 0) {
        close(p[0]);
        close(p[1]);
        pthread_mutex_destroy(&j->lock);
        pthread_cond_destroy(&j->wake_worker);
        free(j);
        return NULL;
    }
    return j;
}

void tui_jobs_stop(struct tui_jobs *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->lock);
    j->stopping = 1;
    j->n_queued = 0;
    j->cancel = 1;
    pthread_cond_signal(&j->wake_worker);
    pthread_mutex_unlock(&j->lock);
    pthread_join(j->thread, NULL);
    for (struct done *d = j->done_head, *next; d; d = next) {
        next = d->next;
        task_result_free(d->result);
        free(d);
    }
    close(j->pipe_rd);
    close(j->pipe_wr);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->wake_worker);
    free(j->queue);
    free(j);
}

int tui_jobs_fd(const struct tui_jobs *j)
{
    return j->pipe_rd;
}

int tui_jobs_enqueue(struct tui_jobs *j, size_t task)
{
    int queued = 0;
    pthread_mutex_lock(&j->lock);
    int present = 0;
    for (size_t i = 0; i < j->n_queued; i++)
        present |= j->queue[i] == task;
    if (!present) {
        if (j->n_queued == j->cap) {
            size_t cap = j->cap ? 2 * j->cap : 16;
            size_t *q = realloc(j->queue, cap * sizeof *q);
            if (q) {
                j->queue = q;
                j->cap = cap;
            }
        }
        if (j->n_queued < j->cap) {
            j->queue[j->n_queued++] = task;
            queued = 1;
            pthread_cond_signal(&j->wake_worker);
        }
    }
    pthread_mutex_unlock(&j->lock);
    return queued;
}

size_t tui_jobs_cancel(struct tui_jobs *j)
{
    pthread_mutex_lock(&j->lock);
    size_t n = j->n_queued + (j->running != NO_TASK);
    j->n_queued = 0;
    if (j->running != NO_TASK)
        j->cancel = 1;
    pthread_mutex_unlock(&j->lock);
    return n;
}

int tui_jobs_running(struct tui_jobs *j, size_t *task, enum grade_step *step, char *detail,
                     size_t detail_size, double *elapsed_s)
{
    pthread_mutex_lock(&j->lock);
    int busy = j->running != NO_TASK;
    if (busy) {
        if (task)
            *task = j->running;
        if (step)
            *step = j->step;
        if (detail && detail_size)
            snprintf(detail, detail_size, "%s", j->detail);
        if (elapsed_s)
            *elapsed_s = now_s() - j->started;
    }
    pthread_mutex_unlock(&j->lock);
    return busy;
}

size_t tui_jobs_queued(struct tui_jobs *j)
{
    pthread_mutex_lock(&j->lock);
    size_t n = j->n_queued;
    pthread_mutex_unlock(&j->lock);
    return n;
}

int tui_jobs_is_queued(struct tui_jobs *j, size_t task)
{
    pthread_mutex_lock(&j->lock);
    int present = 0;
    for (size_t i = 0; i < j->n_queued; i++)
        present |= j->queue[i] == task;
    pthread_mutex_unlock(&j->lock);
    return present;
}

size_t tui_jobs_collect(struct tui *ui)
{
    struct tui_jobs *j = ui->jobs;
    char buf[64];
    while (read(j->pipe_rd, buf, sizeof buf) > 0)
        continue;

    pthread_mutex_lock(&j->lock);
    struct done *list = j->done_head;
    j->done_head = j->done_tail = NULL;
    pthread_mutex_unlock(&j->lock);

    size_t n = 0;
    for (struct done *d = list, *next; d; d = next) {
        next = d->next;
        struct task *t = course_task_mut(ui->course, d->task);
        if (d->result) {
            int saved = session_take(ui->session, t, d->result) == 0 ? 0 : errno;
            n++;
            enum grader_outcome o = task_outcome(t);
            const char *why = result_reason(task_result(t));
            tui_message(ui, tui_outcome_role(o), "%s: %s%s%s", task_id(t), outcome_name(o),
                        why[0] ? ": " : "", why);
            if (saved != 0)
                tui_message(ui, TUI_C_WRONG, "cannot save progress to %s: %s",
                            ui->opts->state_path, strerror(saved));
        }
        free(d);
    }
    return n;
}

/* --------------------------------------------------------------- watch mode */
struct watch_dir {
    int wd;
    char *dir;
};

struct tui_watch {
    int fd;
    struct watch_dir *dirs;
    size_t n_dirs;
    char (*last_hash)[HASH_HEX_LEN + 1];        /* per task: content last queued by a save */
};

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    return strndup(path, (size_t)(slash - path));
}

struct tui_watch *tui_watch_start(struct tui *ui)
{
    size_t n = course_task_count(ui->course);
    struct tui_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->dirs = calloc(n + 1, sizeof *w->dirs);
    w->last_hash = calloc(n + 1, sizeof *w->last_hash);
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (!w->dirs || !w->last_hash || w->fd < 0) {
        int e = w->fd < 0 ? errno : ENOMEM;
        tui_watch_stop(w);
        errno = e;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const struct task *t = course_task(ui->course, i);
        if (hash_file_hex(task_exercise_path(t), w->last_hash[i]) != 0)
            w->last_hash[i][0] = '\0';
        char *dir = dir_of(task_exercise_path(t));
        if (!dir)
            continue;
        int wd = inotify_add_watch(w->fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO);
        int known = 0;
        for (size_t k = 0; k < w->n_dirs; k++)
            known |= w->dirs[k].wd == wd;
        if (wd < 0 || known) {
            free(dir);
            continue;
        }
        w->dirs[w->n_dirs].wd = wd;
        w->dirs[w->n_dirs].dir = dir;
        w->n_dirs++;
    }
    if (w->n_dirs == 0) {
        tui_watch_stop(w);
        errno = ENOENT;
        return NULL;
    }
    return w;
}

void tui_watch_stop(struct tui_watch *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    for (size_t i = 0; i < w->n_dirs; i++)
        free(w->dirs[i].dir);
    free(w->dirs);
    free(w->last_hash);
    free(w);
}

int tui_watch_fd(const struct tui_watch *w)
{
    return w->fd;
}

static const char *watched_dir(const struct tui_watch *w, int wd)
{
    for (size_t i = 0; i < w->n_dirs; i++)
        if (w->dirs[i].wd == wd)
            return w->dirs[i].dir;
    return NULL;
}

/* The task whose exercise file is dir/name, or NO_TASK. */
static size_t task_of_file(const struct course *c, const char *dir, const char *name)
{
    size_t dl = strlen(dir), n = course_task_count(c);
    for (size_t i = 0; i < n; i++) {
        const char *p = task_exercise_path(course_task(c, i));
        if (strncmp(p, dir, dl) == 0 && p[dl] == '/' && strcmp(p + dl + 1, name) == 0)
            return i;
    }
    return NO_TASK;
}

size_t tui_watch_handle(struct tui *ui)
{
    struct tui_watch *w = ui->watch;
    _Alignas(struct inotify_event) char buf[4096];
    size_t queued = 0;
    ssize_t len;
    while ((len = read(w->fd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            const char *dir = watched_dir(w, ev->wd);
            if (!dir || ev->len == 0)
                continue;
            size_t task = task_of_file(ui->course, dir, ev->name);
            if (task == NO_TASK)
                continue;
            const struct task *t = course_task(ui->course, task);
            char hash[HASH_HEX_LEN + 1];
            if (hash_file_hex(task_exercise_path(t), hash) != 0 ||
                strcmp(hash, w->last_hash[task]) == 0)
                continue;
            memcpy(w->last_hash[task], hash, sizeof hash);
            if (tui_jobs_enqueue(ui->jobs, task)) {
                queued++;
                tui_message(ui, TUI_C_RUNNING, "saved %s: rebuilding and regrading",
                            task_id(t));
            }
        }
    }
    return queued;
}

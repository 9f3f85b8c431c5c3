/* queue.c — the grading worker (queue.h). */
#include "queue.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NO_TASK ((size_t)-1)

struct done {
    size_t task;
    struct task_result *result;   /* NULL when the grading was cancelled */
    struct done *next;
};

struct grade_queue {
    const struct course *course;
    struct grade_opts grade;
    grade_progress_fn user_progress;
    void *user_data;
    grade_queue_fn fn;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake_worker;
    int pipe_rd, pipe_wr;

    /* Guarded by lock. An entry is a task's index, with PROFILED set when it is to be
     * graded with profile_args (grade_queue_add_profiled). */
    size_t *queue;
    const char *const *profile_args;
    size_t n_queued, cap;
    size_t running;               /* NO_TASK when idle */
    enum grade_step step;
    char detail[128];
    double started;               /* monotonic seconds */
    struct done *done_head, *done_tail;
    int stopping;

    /* Read by grade_task while a child runs; written by the caller's thread. */
    volatile sig_atomic_t cancel;
};

#define PROFILED ((size_t)1 << (sizeof(size_t) * 8 - 1))

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void poke(struct grade_queue *q)
{
    char b = 1;
    /* A full pipe already holds a wake-up nobody has read: losing this one is fine. */
    ssize_t w = write(q->pipe_wr, &b, 1);
    (void)w;
}

static void on_progress(void *user, const struct task *t, enum grade_step step,
                        const char *detail)
{
    struct grade_queue *q = user;
    pthread_mutex_lock(&q->lock);
    q->step = step;
    snprintf(q->detail, sizeof q->detail, "%s", detail ? detail : "");
    pthread_mutex_unlock(&q->lock);
    if (q->user_progress)
        q->user_progress(q->user_data, t, step, detail);
    poke(q);
}

/* Under the lock: the finished grading joins the list the caller takes from. */
static void finish(struct grade_queue *q, size_t task, struct task_result *r)
{
    if (q->cancel && r) {
        task_result_free(r);
        r = NULL;
    }
    struct done *d = calloc(1, sizeof *d);
    if (!d) {
        task_result_free(r);
        return;
    }
    d->task = task;
    d->result = r;
    if (q->done_tail)
        q->done_tail->next = d;
    else
        q->done_head = d;
    q->done_tail = d;
}

static void *worker(void *arg)
{
    struct grade_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (!q->stopping && q->n_queued == 0)
            pthread_cond_wait(&q->wake_worker, &q->lock);
        if (q->stopping)
            break;
        struct grade_opts opts = q->grade;
        if (q->queue[0] & PROFILED)
            opts.profile_args = q->profile_args;
        size_t task = q->queue[0] & ~PROFILED;
        memmove(q->queue, q->queue + 1, --q->n_queued * sizeof *q->queue);
        q->running = task;
        q->step = GRADE_STEP_BUILD;
        q->detail[0] = '\0';
        q->started = now_s();
        q->cancel = 0;
        pthread_mutex_unlock(&q->lock);
        poke(q);

        struct task_result *r = q->fn(course_task(q->course, task), &opts);

        pthread_mutex_lock(&q->lock);
        finish(q, task, r);
        q->running = NO_TASK;
        pthread_mutex_unlock(&q->lock);
        poke(q);
        pthread_mutex_lock(&q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

struct grade_queue *grade_queue_start(const struct course *c, const struct grade_opts *opts,
                                      grade_queue_fn fn)
{
    struct grade_queue *q = calloc(1, sizeof *q);
    int p[2];
    if (!q)
        return NULL;
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
        free(q);
        return NULL;
    }
    q->pipe_rd = p[0];
    q->pipe_wr = p[1];
    q->course = c;
    q->grade = *opts;
    q->user_progress = opts->progress;
    q->user_data = opts->progress_user;
    q->grade.progress = on_progress;
    q->grade.progress_user = q;
    q->grade.cancel = &q->cancel;
    q->fn = fn ? fn : grade_task;
    q->running = NO_TASK;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake_worker, NULL);
    int e = pthread_create(&q->thread, NULL, worker, q);
    if (e != 0) {
        close(p[0]);
        close(p[1]);
        pthread_mutex_destroy(&q->lock);
        pthread_cond_destroy(&q->wake_worker);
        free(q);
        errno = e;
        return NULL;
    }
    return q;
}

void grade_queue_stop(struct grade_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    q->stopping = 1;
    q->n_queued = 0;
    q->cancel = 1;
    pthread_cond_signal(&q->wake_worker);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    for (struct done *d = q->done_head, *next; d; d = next) {
        next = d->next;
        task_result_free(d->result);
        free(d);
    }
    close(q->pipe_rd);
    close(q->pipe_wr);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->wake_worker);
    free(q->queue);
    free(q);
}

int grade_queue_fd(const struct grade_queue *q)
{
    return q->pipe_rd;
}

void grade_queue_drain(struct grade_queue *q)
{
    char buf[64];
    while (read(q->pipe_rd, buf, sizeof buf) > 0)
        continue;
}

/* Under the lock. */
static int queued_locked(const struct grade_queue *q, size_t task)
{
    for (size_t i = 0; i < q->n_queued; i++)
        if ((q->queue[i] & ~PROFILED) == task)
            return 1;
    return 0;
}

/* task queued with entry as its queue entry; 1, or 0 when already queued or out of memory */
static int add_entry(struct grade_queue *q, size_t task, size_t entry)
{
    int queued = 0;
    pthread_mutex_lock(&q->lock);
    if (!queued_locked(q, task)) {
        if (q->n_queued == q->cap) {
            size_t cap = q->cap ? 2 * q->cap : 16;
            size_t *grown = realloc(q->queue, cap * sizeof *grown);
            if (grown) {
                q->queue = grown;
                q->cap = cap;
            }
        }
        if (q->n_queued < q->cap) {
            q->queue[q->n_queued++] = entry;
            queued = 1;
            pthread_cond_signal(&q->wake_worker);
        }
    }
    pthread_mutex_unlock(&q->lock);
    return queued;
}

int grade_queue_add(struct grade_queue *q, size_t task)
{
    return add_entry(q, task, task);
}

int grade_queue_add_profiled(struct grade_queue *q, size_t task,
                             const char *const *profile_args)
{
    pthread_mutex_lock(&q->lock);
    q->profile_args = profile_args;
    pthread_mutex_unlock(&q->lock);
    return add_entry(q, task, task | PROFILED);
}

size_t grade_queue_cancel(struct grade_queue *q)
{
    pthread_mutex_lock(&q->lock);
    size_t n = q->n_queued + (q->running != NO_TASK);
    q->n_queued = 0;
    if (q->running != NO_TASK)
        q->cancel = 1;
    pthread_mutex_unlock(&q->lock);
    return n;
}

int grade_queue_running(struct grade_queue *q, struct grade_queue_status *st)
{
    pthread_mutex_lock(&q->lock);
    int busy = q->running != NO_TASK;
    if (busy && st) {
        st->task = q->running;
        st->step = q->step;
        snprintf(st->detail, sizeof st->detail, "%s", q->detail);
        st->elapsed_s = now_s() - q->started;
    }
    pthread_mutex_unlock(&q->lock);
    return busy;
}

size_t grade_queue_waiting(struct grade_queue *q)
{
    pthread_mutex_lock(&q->lock);
    size_t n = q->n_queued;
    pthread_mutex_unlock(&q->lock);
    return n;
}

int grade_queue_has(struct grade_queue *q, size_t task)
{
    pthread_mutex_lock(&q->lock);
    int present = queued_locked(q, task);
    pthread_mutex_unlock(&q->lock);
    return present;
}

int grade_queue_take(struct grade_queue *q, size_t *task, struct task_result **result)
{
    pthread_mutex_lock(&q->lock);
    struct done *d = q->done_head;
    if (d) {
        q->done_head = d->next;
        if (!q->done_head)
            q->done_tail = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    if (!d)
        return 0;
    *task = d->task;
    *result = d->result;
    free(d);
    return 1;
}

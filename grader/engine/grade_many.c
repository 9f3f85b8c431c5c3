/* grade_many.c — several tasks of one grading at once (grade.h: grade_many).
 *
 * A task's grading spends most of its wall time off the GPU, or on it untimed: the build's
 * share, the objdump of its symbols, the verifier on every core, the sanitizers, the starts
 * of its processes up to the gate. Graded one after the other, the GPU idles through all of
 * it. Here up to `jobs` threads each grade one task at a time; the GPU's lock (gpulock.h)
 * still lets one timed run at a time hold it, so a time is taken as fairly as alone. Without
 * a lock there is no such promise, and the tasks are graded one after the other.
 *
 * The results reach the caller in the order of the tasks, on its own thread, so a report or a
 * progress line reads the same whatever finished first. */
#include <pthread.h>
#include <stdlib.h>

#include "grade.h"
#include "util.h"

struct many {
    const struct task *const *tasks;
    size_t n;
    const struct grade_opts *o;
    pthread_mutex_t lock;
    pthread_cond_t finished;        /* a result was stored */
    size_t next;                    /* the next task a worker takes */
    struct task_result **results;   /* [n]; NULL until graded */
    unsigned char *done;            /* [n]; 1 once results[i] is final (it may be NULL) */
};

static int cancelled(const struct grade_opts *o) { return o->cancel && *o->cancel; }

static void *worker(void *arg)
{
    struct many *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->lock);
        size_t i = m->next < m->n && !cancelled(m->o) ? m->next++ : m->n;
        pthread_mutex_unlock(&m->lock);
        if (i == m->n) {
            /* a caller waiting on a task nobody will take now sees the cancel */
            pthread_mutex_lock(&m->lock);
            pthread_cond_broadcast(&m->finished);
            pthread_mutex_unlock(&m->lock);
            return NULL;
        }
        struct task_result *r = grade_task(m->tasks[i], m->o);
        pthread_mutex_lock(&m->lock);
        m->results[i] = r;
        m->done[i] = 1;
        pthread_cond_broadcast(&m->finished);
        pthread_mutex_unlock(&m->lock);
    }
}

unsigned grade_many_jobs(const struct grade_opts *o, unsigned jobs)
{
    if (jobs <= 1 || !o->gpu_lock)
        return 1;
    /* With the course unbuilt, every grading would make the references in the same tree. */
    if (o->build && !grade_batch_course_built(o->batch))
        return 1;
    return jobs;
}

size_t grade_many(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                  unsigned jobs, grade_done_fn done, void *user)
{
    jobs = grade_many_jobs(o, jobs);
    if (jobs > n)
        jobs = (unsigned)n;
    size_t handed = 0;
    if (jobs <= 1) {
        for (size_t i = 0; i < n && !cancelled(o); i++, handed++)
            done(i, grade_task(tasks[i], o), user);
        return handed;
    }
    struct many m = {.tasks = tasks, .n = n, .o = o};
    pthread_mutex_init(&m.lock, NULL);
    pthread_cond_init(&m.finished, NULL);
    m.results = xcalloc(n, sizeof *m.results);
    m.done = xcalloc(n, 1);
    pthread_t *th = xcalloc(jobs, sizeof *th);
    unsigned started = 0;
    while (started < jobs && pthread_create(&th[started], NULL, worker, &m) == 0)
        started++;
    if (started == 0)
        worker(&m); /* no thread to be had: this one grades them all */
    /* In order: task i's result as soon as it and every one before it is graded. A task that
     * was never taken (cancelled) ends the list. */
    for (size_t i = 0; i < n; i++) {
        pthread_mutex_lock(&m.lock);
        while (!m.done[i] && (i < m.next || !cancelled(o)))
            pthread_cond_wait(&m.finished, &m.lock);
        int have = m.done[i];
        struct task_result *r = m.results[i];
        pthread_mutex_unlock(&m.lock);
        if (!have)
            break;
        done(i, r, user);
        handed++;
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    /* results a cancelled run graded after the first one that was never taken */
    for (size_t i = handed; i < n; i++)
        task_result_free(m.results[i]);
    free(th);
    free(m.done);
    free(m.results);
    pthread_cond_destroy(&m.finished);
    pthread_mutex_destroy(&m.lock);
    return handed;
}

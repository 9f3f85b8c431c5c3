/* grade_many.c — several tasks of one grading at once (grade.h: grade_many).
 *
 * A task's grading spends most of its wall time off the GPU, or on it untimed: the build's
 * share, the objdump of its symbols, the verifier on every core, the sanitizers, the starts
 * of its processes up to the gate. Graded one after the other, the GPU idles through all of
 * it. Here several threads grade several tasks at once; the GPU's lock (gpulock.h) still
 * lets one timed run at a time hold it, so a time is taken as fairly as alone. Without a lock
 * there is no such promise, and the tasks are graded one after the other.
 *
 * The gradings go in two stages, the first over every task before the second begins (grade.h:
 * grade_begin, grade_end), so that what each runs on the GPU meets only its own kind:
 *   1. on `jobs` threads, up to the verifier's verdict: the first looks, timed one at a time
 *      (beside the sanitizers, which only make them slower: a too-slow verdict gets a second
 *      look alone), and the sanitizers beside the verifier;
 *   2. on up to 4 x jobs threads, the times that need the GPU alone: the reference's, a
 *      second look, ncu's when its first look does not settle. A run waiting for the GPU
 *      alone lets no other run start (gpulock.c), so these runs are started together, and
 *      come to their gates one after another with no start between them.
 * Mixed, as they were, every reference's time waited for the sanitizers then running to end,
 * and on the H200 those waits were a third of a course's wall.
 *
 * The results reach the caller in the order of the tasks, on its own thread, so a report or a
 * progress line reads the same whatever finished first: after stage 1 as far as no task to be
 * timed stands before, the rest after stage 2. */
#include <pthread.h>
#include <stdlib.h>

#include "grade.h"
#include "util.h"

enum stage { STAGE_BEGIN, STAGE_TIME };

struct many {
    const struct task *const *tasks;
    const struct grade_opts *o;
    enum stage stage;
    pthread_mutex_t lock;
    size_t *todo, n_todo, next;     /* the tasks of this stage, and the next one to take */
    size_t begun;                   /* tasks 0..begun-1 were begun (a cancel stops the rest) */
    struct grading **g;             /* [n]: begun, not yet ended */
    struct task_result **results;   /* [n] */
    unsigned char *final;           /* [n]: 1 once results[i] is (it may be NULL) */
};

static int cancelled(const struct grade_opts *o) { return o->cancel && *o->cancel; }

static void *worker(void *arg)
{
    struct many *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->lock);
        int stop = m->next == m->n_todo || (m->stage == STAGE_BEGIN && cancelled(m->o));
        size_t i = stop ? 0 : m->todo[m->next++];
        pthread_mutex_unlock(&m->lock);
        if (stop)
            return NULL;
        switch (m->stage) {
        case STAGE_BEGIN:
            m->g[i] = grade_begin(m->tasks[i], m->o);
            break;
        case STAGE_TIME:
            m->results[i] = grade_end(m->g[i]);
            m->g[i] = NULL;
            m->final[i] = 1;
            break;
        }
    }
}

/* One stage over todo[0..n_todo) on up to width threads (or this one, when none can be had). */
static void run_stage(struct many *m, enum stage s, unsigned width)
{
    m->stage = s;
    m->next = 0;
    if (width > m->n_todo)
        width = (unsigned)m->n_todo;
    pthread_t th[128];
    unsigned started = 0;
    while (started < width && started < sizeof th / sizeof *th &&
           pthread_create(&th[started], NULL, worker, m) == 0)
        started++;
    if (started == 0)
        worker(m);
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

/* Hands results[from..n) over in order, up to the first one not final; returns where it
 * stopped. */
static size_t hand_over(struct many *m, size_t from, size_t n, grade_done_fn done, void *user)
{
    while (from < n && m->final[from]) {
        done(from, m->results[from], user);
        m->results[from++] = NULL;
    }
    return from;
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
    struct many m = {.tasks = tasks, .o = o};
    pthread_mutex_init(&m.lock, NULL);
    m.todo = xcalloc(n, sizeof *m.todo);
    m.g = xcalloc(n, sizeof *m.g);
    m.results = xcalloc(n, sizeof *m.results);
    m.final = xcalloc(n, 1);

    for (size_t i = 0; i < n; i++)
        m.todo[i] = i;
    m.n_todo = n;
    run_stage(&m, STAGE_BEGIN, jobs);
    while (m.begun < n && m.g[m.begun])
        m.begun++;

    /* what needs no time ends here, and is handed over as far as the order allows */
    m.n_todo = 0;
    for (size_t i = 0; i < m.begun; i++) {
        if (grading_times_next(m.g[i])) {
            m.todo[m.n_todo++] = i;
        } else {
            m.results[i] = grade_end(m.g[i]);
            m.g[i] = NULL;
            m.final[i] = 1;
        }
    }
    handed = hand_over(&m, 0, m.begun, done, user);
    run_stage(&m, STAGE_TIME, 4 * jobs);
    handed = hand_over(&m, handed, m.begun, done, user);

    free(m.final);
    free(m.results);
    free(m.g);
    free(m.todo);
    pthread_mutex_destroy(&m.lock);
    return handed;
}

/* grade_many.c — several tasks of one grading at once (grade.h: grade_many, grade_ahead).
 *
 * A task's grading spends most of its wall time off the GPU, or on it untimed: the build's
 * share, the objdump of its symbols, the verifier on every core, the sanitizers, the starts
 * of its processes up to the gate. Graded one after the other, the GPU idles through all of
 * it. Here several threads grade several tasks at once; the GPU's lock (gpulock.h) still
 * lets one timed run at a time hold it, so a time is taken as fairly as alone. Without a lock
 * there is no such promise, and the tasks are graded one after the other.
 *
 * grade_many goes in two stages, so that what each runs on the GPU meets only its own kind:
 *   1. every task up to the verifier's verdict, in two steps: begun on 2 x jobs threads
 *      (grade_begin: its build's share, symbols, cases and graded run, the first looks timed
 *      one at a time), then checked on `jobs` threads (grade_check: the verifier, the
 *      sanitizers beside it). A beginner takes the next task while the checkers still verify
 *      the last ones, so that the first looks follow one another at the GPU while the CPU
 *      verifies; no more than `jobs` begun tasks wait to be checked. Twice as many programs
 *      as checkers are under way because, beside the sanitizers, a program took 2-3 s to
 *      reach its gate and a turn (the device memory kept between its calls) a few tenths:
 *      with one per checker the GPU's turn waited for the next program to start. The first
 *      looks run beside the sanitizers, which only make them slower: a too-slow verdict gets
 *      a second look alone.
 *   2. the times (grade_end): the reference's, a second look, ncu's. Each task's are started
 *      on a thread of their own (up to 4 x jobs) as soon as its verdict is in, so that their
 *      programs start, open their devices and wait at their gates beside stage 1; none of them
 *      asks for its turn before stage 1 has ended everywhere (the door below). A run waiting
 *      for the GPU alone lets no other run start (gpulock.c), and, mixed with stage 1 as they
 *      once were, every reference's time waited for the sanitizers then running to end: on
 *      the H200 those waits were a third of a course's wall. Started only once stage 1 was
 *      over, they then spent two seconds reaching their gates. A drawn ncu cross-check's
 *      first look (grade.c: run_speed) waits at the door too: beside the sanitizers its turn
 *      took two seconds or more, after them under one.
 * grade_ahead is one task at a time, but with the next task's first part (its build's share,
 * its symbols, its cases, its graded run) going on while this one is verified, sanitized and
 * timed: the same pipeline with one thread of each kind, the checker timing its tasks itself.
 * A class grades each student this way, and its GPU's turn no longer waits for a student's
 * next program to start. grade_ahead_pick lets the caller choose each task's options as it
 * begins: a class on several GPUs sends the last students' tasks to the GPU least busy then.
 *
 * The results reach the caller in the order of the tasks, on its own thread, as soon as they
 * and every one before them are over: a report or a progress line reads the same whatever
 * finished first. */
#include <pthread.h>
#include <stdlib.h>

#include "grade.h"
#include "util.h"

#define MAX_THREADS 128

struct many {
    const struct task *const *tasks;
    size_t n;
    const struct grade_opts *o;
    unsigned jobs;
    unsigned ahead;                 /* beginners: graded runs under way, most at their gates */
    int times_inline;               /* grade_ahead: a checker takes its task's times itself */
    grade_pick_fn pick;             /* grade_ahead_pick: each task's options (NULL: o) */
    void *pick_user;
    pthread_mutex_t lock;
    pthread_cond_t changed;         /* anything below changed */
    size_t next;                    /* the next task to begin; 0..next-1 were begun */
    size_t *begun, n_begun, n_checking; /* tasks begun, in that order; how many taken to check */
    unsigned beginners_left, checkers_left; /* stage 1's threads still running */
    int first_over;                 /* stage 1 is over: the door is open, nothing more queued */
    size_t *queue, n_queued, n_taken; /* stage 2: tasks to time, in the order they came */
    unsigned timers, max_timers, idle; /* timer threads started, at most, waiting for a task */
    pthread_t timer[MAX_THREADS];
    struct grading **g;             /* [n]: begun, or checked with its times to be taken */
    struct task_result **results;   /* [n] */
    unsigned char *final;           /* [n]: 1 once results[i] is (it may be NULL) */
};

static int cancelled(const struct grade_opts *o) { return o->cancel && *o->cancel; }

/* The options task i is graded with, chosen as it begins. */
static const struct grade_opts *opts_for(grade_pick_fn pick, void *user,
                                         const struct grade_opts *o, size_t i)
{
    const struct grade_opts *chosen = pick ? pick(i, user) : NULL;
    return chosen ? chosen : o;
}

static void finish(struct many *m, size_t i, struct task_result *r)
{
    pthread_mutex_lock(&m->lock);
    m->results[i] = r;
    m->final[i] = 1;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
}

/* At the gate of a run of grade_end's that takes a turn (grade.h: grading_turn_wait). */
static void door(void *arg)
{
    struct many *m = arg;
    pthread_mutex_lock(&m->lock);
    while (!m->first_over)
        pthread_cond_wait(&m->changed, &m->lock);
    pthread_mutex_unlock(&m->lock);
}

/* Stage 2: the queued tasks' times, until the first stage is over and the queue empty. */
static void *timer(void *arg)
{
    struct many *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->lock);
        m->idle++;
        while (m->n_taken == m->n_queued && !m->first_over)
            pthread_cond_wait(&m->changed, &m->lock);
        m->idle--;
        int none = m->n_taken == m->n_queued;
        size_t i = none ? 0 : m->queue[m->n_taken++];
        struct grading *g = none ? NULL : m->g[i];
        pthread_mutex_unlock(&m->lock);
        if (none)
            return NULL;
        finish(m, i, grade_end(g));
    }
}

/* Stage 1, first part: each task up to its graded run, in order, no more than `jobs` of them
 * waiting to be checked. */
static void *beginner(void *arg)
{
    struct many *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->lock);
        while (m->n_begun - m->n_checking >= m->jobs && !cancelled(m->o))
            pthread_cond_wait(&m->changed, &m->lock);
        int stop = m->next == m->n || cancelled(m->o);
        size_t i = stop ? 0 : m->next++;
        pthread_mutex_unlock(&m->lock);
        if (stop)
            break;
        struct grading *g = grade_begin(m->tasks[i], opts_for(m->pick, m->pick_user, m->o, i));
        pthread_mutex_lock(&m->lock);
        m->g[i] = g;
        m->begun[m->n_begun++] = i;
        pthread_cond_broadcast(&m->changed);
        pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_lock(&m->lock);
    m->beginners_left--;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

/* Stage 1, second part: the begun tasks checked; those with times to take queued for a timer
 * thread, started for them while fewer than 4 x jobs run. The last checker to end opens the
 * door, and becomes a timer itself when no timer thread could be started. */
static void *checker(void *arg)
{
    struct many *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->lock);
        while (m->n_checking == m->n_begun && m->beginners_left > 0)
            pthread_cond_wait(&m->changed, &m->lock);
        int stop = m->n_checking == m->n_begun;
        size_t i = stop ? 0 : m->begun[m->n_checking++];
        struct grading *g = stop ? NULL : m->g[i];
        pthread_cond_broadcast(&m->changed); /* room for a beginner */
        pthread_mutex_unlock(&m->lock);
        if (stop)
            break;
        grade_check(g);
        if (m->times_inline || !grading_times_next(g)) {
            finish(m, i, grade_end(g));
            continue;
        }
        grading_turn_wait(g, door, m);
        pthread_mutex_lock(&m->lock);
        m->queue[m->n_queued++] = i;
        if (m->timers < m->max_timers && m->n_queued - m->n_taken > m->idle &&
            pthread_create(&m->timer[m->timers], NULL, timer, m) == 0)
            m->timers++;
        pthread_cond_broadcast(&m->changed);
        pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_lock(&m->lock);
    int last = --m->checkers_left == 0;
    if (last)
        m->first_over = 1;
    pthread_cond_broadcast(&m->changed);
    int orphans = last && m->timers == 0 && m->n_taken < m->n_queued;
    pthread_mutex_unlock(&m->lock);
    if (orphans)
        timer(m);
    return NULL;
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

/* Hands the results over in order, each as soon as it and every one before it are final, until
 * every task begun was; returns how many. */
static size_t hand_over(struct many *m, grade_done_fn done, void *user)
{
    size_t handed = 0;
    for (;;) {
        pthread_mutex_lock(&m->lock);
        while (handed < m->n && !m->final[handed] &&
               !(m->checkers_left == 0 && handed >= m->next))
            pthread_cond_wait(&m->changed, &m->lock);
        int more = handed < m->n && m->final[handed];
        struct task_result *r = more ? m->results[handed] : NULL;
        pthread_mutex_unlock(&m->lock);
        if (!more)
            return handed;
        done(handed, r, user);
        handed++;
    }
}

static size_t one_by_one(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                         grade_pick_fn pick, void *pick_user, grade_done_fn done, void *user)
{
    size_t handed = 0;
    for (size_t i = 0; i < n && !cancelled(o); i++, handed++)
        done(i, grade_task(tasks[i], opts_for(pick, pick_user, o, i)), user);
    return handed;
}

/* The pipeline of both: 2 x `jobs` beginners (one for grade_ahead) and `jobs` checkers, and the
 * times on timer threads behind the door, or taken by the checkers themselves (times_inline). */
static size_t pipeline(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                       unsigned jobs, int times_inline, grade_pick_fn pick, void *pick_user,
                       grade_done_fn done, void *user)
{
    struct many m = {.tasks = tasks, .n = n, .o = o, .jobs = jobs, .times_inline = times_inline,
                     .ahead = times_inline ? 1 : 2 * jobs, .pick = pick, .pick_user = pick_user};
    pthread_mutex_init(&m.lock, NULL);
    pthread_cond_init(&m.changed, NULL);
    m.begun = xcalloc(n, sizeof *m.begun);
    m.queue = xcalloc(n, sizeof *m.queue);
    m.g = xcalloc(n, sizeof *m.g);
    m.results = xcalloc(n, sizeof *m.results);
    m.final = xcalloc(n, 1);
    m.max_timers = 4 * jobs < MAX_THREADS ? 4 * jobs : MAX_THREADS;

    /* jobs threads of each kind; the calling thread checks when no checker could be started */
    pthread_t th[2 * MAX_THREADS];
    unsigned started = 0, beginners = 0;
    pthread_mutex_lock(&m.lock);
    while (beginners < m.ahead && pthread_create(&th[started], NULL, beginner, &m) == 0)
        m.beginners_left = ++beginners, started++;
    while (beginners > 0 && started - beginners < jobs &&
           pthread_create(&th[started], NULL, checker, &m) == 0)
        m.checkers_left = ++started - beginners;
    int self_check = beginners > 0 && started == beginners;
    if (self_check)
        m.checkers_left = 1;
    pthread_mutex_unlock(&m.lock);
    size_t handed;
    if (beginners == 0) {
        handed = one_by_one(tasks, n, o, pick, pick_user, done, user);
    } else {
        if (self_check)
            checker(&m);
        handed = hand_over(&m, done, user);
        for (unsigned t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        /* every timer was started by a checker, all of which have ended */
        for (unsigned t = 0; t < m.timers; t++)
            pthread_join(m.timer[t], NULL);
    }
    free(m.final);
    free(m.results);
    free(m.g);
    free(m.queue);
    free(m.begun);
    pthread_cond_destroy(&m.changed);
    pthread_mutex_destroy(&m.lock);
    return handed;
}

size_t grade_many(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                  unsigned jobs, grade_done_fn done, void *user)
{
    jobs = grade_many_jobs(o, jobs);
    if (jobs > n)
        jobs = (unsigned)n;
    if (jobs <= 1)
        return one_by_one(tasks, n, o, NULL, NULL, done, user);
    return pipeline(tasks, n, o, jobs, 0, NULL, NULL, done, user);
}

/* One beginner and one checker: the beginner waits while a begun task waits to be checked, so
 * it is never more than one task ahead, and the checker takes each task's times itself. */
size_t grade_ahead(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                   grade_done_fn done, void *user)
{
    return grade_ahead_pick(tasks, n, o, NULL, NULL, done, user);
}

size_t grade_ahead_pick(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                        grade_pick_fn pick, void *pick_user, grade_done_fn done, void *user)
{
    if (!o->gpu_lock || n < 2)
        return one_by_one(tasks, n, o, pick, pick_user, done, user);
    return pipeline(tasks, n, o, 1, 1, pick, pick_user, done, user);
}

/* queue.h — a worker thread that grades queued tasks one after the other.
 *
 * The GPU is one shared resource: two gradings at once would time each other, so one worker
 * takes the tasks in order. It only reads the course; a finished result waits in the queue
 * until the caller's thread takes it (grade_queue_take) and gives it to its task, so the
 * model is written by one thread only. A byte on a pipe (grade_queue_fd) says that a grading
 * started, moved to another step or finished, so the caller can poll it with its other
 * sources. No curses, no screen: the TUI and any other front end drive it the same way.
 */
#ifndef GRADER_QUEUE_H
#define GRADER_QUEUE_H

#include <stddef.h>

#include "grade.h"
#include "model.h"

struct grade_queue;

/* How a task is graded: grade_task, or a stand-in in the unit tests. */
typedef struct task_result *(*grade_queue_fn)(const struct task *t, const struct grade_opts *o);

/* Starts the worker on course c with a copy of opts (its progress and cancel fields are the
 * queue's own; opts->progress, when set, is still called from the worker). fn NULL:
 * grade_task. NULL when the thread or the pipe cannot be had (errno set). */
struct grade_queue *grade_queue_start(const struct course *c, const struct grade_opts *opts,
                                      grade_queue_fn fn);
/* Cancels the running grading, drops the queue and the unclaimed results, joins the worker. */
void grade_queue_stop(struct grade_queue *q);
/* Readable when a grading started, moved to another step or finished. */
int grade_queue_fd(const struct grade_queue *q);
/* Empties the wake-up pipe (after poll said grade_queue_fd was readable). */
void grade_queue_drain(struct grade_queue *q);
/* 1 when queued; 0 when it is already queued (a task is not queued twice) or out of memory. */
int grade_queue_add(struct grade_queue *q, size_t task);
/* The same, graded with profile_args as grade_opts.profile_args (the profile under ncu),
 * whatever the queue's options say. */
int grade_queue_add_profiled(struct grade_queue *q, size_t task,
                             const char *const *profile_args);
/* Cancels the running grading and drops the queue; returns how many were dropped or stopped. */
size_t grade_queue_cancel(struct grade_queue *q);

struct grade_queue_status {
    size_t task;              /* the task being graded */
    enum grade_step step;
    char detail[128];         /* the step's detail (a sanitizer tool), "" for none */
    double elapsed_s;
};
/* 1 and *st filled (st may be NULL) while a task is graded, else 0. */
int grade_queue_running(struct grade_queue *q, struct grade_queue_status *st);
size_t grade_queue_waiting(struct grade_queue *q);
int grade_queue_has(struct grade_queue *q, size_t task);

/* Takes the oldest finished grading: 1 with *task and *result (the caller owns it; NULL when
 * the grading was cancelled), 0 when none is waiting. */
int grade_queue_take(struct grade_queue *q, size_t *task, struct task_result **result);

#endif /* GRADER_QUEUE_H */

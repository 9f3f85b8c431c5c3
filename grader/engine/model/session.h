/* session.h — one grading session: the course, its saved progress loaded once, the one
 * freshness test, taking a result (recorded into the task and saved), and the one rule that
 * turns the results into the exit status. --batch, the plain-text run and the TUI share it;
 * class grading shares the exit-status rule.
 */
#ifndef GRADER_SESSION_H
#define GRADER_SESSION_H

#include <stddef.h>

#include "model.h"

/* The exit statuses of every grader command. */
enum grader_exit {
    GRADER_EXIT_PASSED = 0,     /* every graded task passed (skipped ones count neither way) */
    GRADER_EXIT_NOT_ALL = 1,    /* some graded task did not pass, or a lesson.ini is broken */
    GRADER_EXIT_USAGE = 2,      /* a bad command line: one line on stderr */
    GRADER_EXIT_SKIPPED = 77,   /* every graded task was skipped: no usable GPU here */
    GRADER_EXIT_INTERRUPTED = 130, /* SIGINT or SIGTERM */
};

/* The rule, from counts: a broken lesson.ini (errors) or a graded task that neither passed nor
 * was skipped -> 1; else every graded task skipped -> 77; else 0 (also when nothing was
 * graded). */
int grader_exit_status(size_t graded, size_t passed, size_t skipped, size_t errors);
/* The rule over the course's tasks that have a result, and its lesson.ini errors. */
int course_exit_status(const struct course *c);

struct grading_session;

/* A session on c (which stays the caller's). state_path: the saved progress, loaded here once;
 * NULL: none is read or written. apply_saved: tasks whose saved entry is fresh get their saved
 * result back. Never NULL (NULL only when out of memory). */
struct grading_session *session_open(struct course *c, const char *state_path, int apply_saved);
void session_close(struct grading_session *s);
struct course *session_course(const struct grading_session *s);
/* One line when the saved progress was corrupt and kept aside (state.h), for the front end to
 * show; NULL otherwise. */
const char *session_state_note(const struct grading_session *s);

/* The one freshness test: t has a result, and it was graded from its exercise file as the
 * file is now. 0 without saved progress. */
int session_is_fresh(const struct grading_session *s, const struct task *t);
/* Hands r to t (which frees its previous one), records it and saves the progress. 0, or -1
 * with errno set when the progress could not be saved (the result is taken all the same). */
int session_take(struct grading_session *s, struct task *t, struct task_result *r);

#endif /* GRADER_SESSION_H */

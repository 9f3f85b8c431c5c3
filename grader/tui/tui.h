/* tui.h — the grader's ncurses interface: `grader` on a terminal.
 *
 * The course as a list (lessons, tasks, outcome, score, a course progress bar), a task's
 * details (cases, first mismatches, time against the reference, sanitizer findings, compiler
 * errors), pagers for the lesson notes, the hints and the build log, and watch mode (inotify:
 * a saved exercise file is rebuilt and regraded). Grading runs on a worker thread, so the
 * screen keeps answering keys and shows which step is running.
 *
 * Progress: the session (session.h) has given fresh tasks their saved results already; every
 * grading is taken into it as it finishes.
 */
#ifndef GRADER_TUI_H
#define GRADER_TUI_H

#include "grade.h"
#include "model.h"
#include "session.h"

/* Runs until the student quits. Needs a terminal on stdin and stdout (the caller falls back
 * to plain text otherwise). Returns a process exit status: course_exit_status (session.h),
 * 2 when the terminal could not be used. */
int tui_main(struct grading_session *s, const struct grader_opts *o);

/* 1 when the terminal can carry the screens: TERM set and not "dumb", known to terminfo, with
 * cursor addressing. The caller prints plain text otherwise, exactly as into a pipe. */
int tui_usable(void);

#endif /* GRADER_TUI_H */

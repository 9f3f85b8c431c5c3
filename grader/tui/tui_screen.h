/* tui_screen.h — what the TUI's modules share: the interface state, the screen contract,
 * the drawing helpers (tui_draw.c) and the grading worker and watch mode (tui_jobs.c).
 *
 * Every screen is a pair: x_draw(ui) paints rows 1 .. LINES-2 of an erased screen from the
 * state alone (the only thing it writes back is a scroll offset clamped to the window);
 * x_key(ui, ch) changes the state only and says what the central loop (tui.c) should do
 * next. The loop owns the title bar (row 0), the key bar
 * (row LINES-1), KEY_RESIZE and the "terminal too small" screen.
 */
#ifndef GRADER_TUI_SCREEN_H
#define GRADER_TUI_SCREEN_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stddef.h>
#include <stdint.h>

#include "grade.h"
#include "model.h"
#include "hash.h"
#include "state.h"
#include "tui_colors.h"
#include "tui_text.h"

/* Below this the screens cannot lay out their columns: the loop shows "terminal too small". */
#define TUI_MIN_COLS 60
#define TUI_MIN_LINES 12
#define TUI_STACK_MAX 6

enum tui_action {
    TUI_UNHANDLED = 0,  /* not this screen's key: the loop tries the global keys */
    TUI_HANDLED,        /* state unchanged on screen */
    TUI_REDRAW,         /* state changed: draw again */
    TUI_QUIT
};

enum tui_screen_id { TUI_SCREEN_LIST, TUI_SCREEN_TASK, TUI_SCREEN_PAGER, TUI_SCREEN_HELP };

enum tui_pager_kind {
    TUI_PAGER_NOTES,
    TUI_PAGER_HINTS,
    TUI_PAGER_BUILD_LOG,
    TUI_PAGER_OUTPUT,
    TUI_PAGER_SANITIZER
};

struct tui_pager {
    enum tui_pager_kind kind;
    char title[256];
    char **lines;           /* raw lines, tabs expanded, control characters removed */
    size_t n_lines;
    size_t top;             /* first visible row after wrapping */
    size_t rows;            /* wrapped rows at the last draw, for paging keys */
    size_t task;            /* the task whose hints / log / output is shown */
    int typing;             /* the search prompt has the keyboard */
    char query[128];        /* the last search, "" for none */
    size_t match;           /* raw line of the current match; SIZE_MAX when none */
};

struct tui_jobs;
struct tui_watch;

struct tui {
    struct course *course;
    const struct grader_opts *opts;
    struct grader_state *state;
    int color;              /* colors in use (a color terminal and no NO_COLOR) */
    int utf8;               /* the locale encodes UTF-8: block and check-mark glyphs */

    enum tui_screen_id stack[TUI_STACK_MAX];
    size_t depth;

    size_t sel;             /* selected task, index in course order */
    size_t list_top;        /* first visible row of the course list */
    size_t detail_top;      /* first visible row of the task details */
    size_t detail_rows;     /* rows of the task details at the last draw */
    struct tui_pager pager;
    size_t *hints_shown;    /* per task: hints revealed so far */

    struct tui_jobs *jobs;
    struct tui_watch *watch;   /* NULL while watch mode is off */

    char msg[512];          /* one-line message on the key bar until the next key */
    enum tui_role msg_role;
    unsigned tick;          /* spinner phase, advanced while grading */
};

/* --------------------------------------------------------------- screens */
void tui_list_draw(struct tui *ui);
enum tui_action tui_list_key(struct tui *ui, int ch);
extern const char tui_list_keys[];

void tui_task_draw(struct tui *ui);
enum tui_action tui_task_key(struct tui *ui, int ch);
extern const char tui_task_keys[];

void tui_pager_draw(struct tui *ui);
enum tui_action tui_pager_key(struct tui *ui, int ch);
extern const char tui_pager_keys[];
/* Open a pager on the selected task (replacing a pager already on top); 0, or -1 with
 * ui->msg saying why (no notes, no build log yet, no hints). */
int tui_pager_open(struct tui *ui, enum tui_pager_kind kind);
void tui_pager_free(struct tui_pager *p);

void tui_help_draw(struct tui *ui);
enum tui_action tui_help_key(struct tui *ui, int ch);
extern const char tui_help_keys[];

/* --------------------------------------------------------------- navigation (tui.c) */
void tui_push(struct tui *ui, enum tui_screen_id s);
void tui_pop(struct tui *ui);
enum tui_screen_id tui_top(const struct tui *ui);
void tui_message(struct tui *ui, enum tui_role role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Queue a task for grading; force 0 skips it while its saved result is fresh. 1 when queued. */
int tui_grade(struct tui *ui, size_t task, int force);
void tui_watch_toggle(struct tui *ui);

/* --------------------------------------------------------------- drawing (tui_draw.c) */
void tui_colors_init(int use_color);
attr_t tui_attr(enum tui_role r);
/* Paints s at (y, x) in role r, clipped to maxw columns (an ellipsis marks a cut); returns
 * the columns used. extra is OR-ed into the attribute (A_REVERSE for the selected row). */
int tui_put(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *s);
int tui_putf(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Fills a row from x to the right edge with blanks in role r. */
void tui_fill(int y, int x, enum tui_role r, attr_t extra);
/* A bar of width cells, filled to frac (0..1) in role done, the rest in role todo. */
void tui_bar(int y, int x, int width, double frac, enum tui_role done, enum tui_role todo,
             int utf8);
/* The outcome's role and a one-cell glyph for it. */
enum tui_role tui_outcome_role(enum grader_outcome o);
const char *tui_outcome_glyph(enum grader_outcome o, int utf8);
/* Braille spinner (or |/-\) frame. */
const char *tui_spinner(unsigned tick, int utf8);

/* --------------------------------------------------------------- grading (tui_jobs.c) */
struct tui_jobs *tui_jobs_start(struct tui *ui);
/* Cancels the running grading, drops the queue, joins the worker. */
void tui_jobs_stop(struct tui_jobs *j);
/* Readable when a grading finished or moved to another step. */
int tui_jobs_fd(const struct tui_jobs *j);
/* 1 when queued (not running); duplicates are not queued twice. */
int tui_jobs_enqueue(struct tui_jobs *j, size_t task);
/* Cancel the running grading and drop the queue; returns how many were dropped or stopped. */
size_t tui_jobs_cancel(struct tui_jobs *j);
/* The running task: 1 and *task, *step, detail, *elapsed_s when one runs, else 0. */
int tui_jobs_running(struct tui_jobs *j, size_t *task, enum grade_step *step, char *detail,
                     size_t detail_size, double *elapsed_s);
size_t tui_jobs_queued(struct tui_jobs *j);
int tui_jobs_is_queued(struct tui_jobs *j, size_t task);
/* On the loop's thread, after tui_jobs_fd was readable: hands finished results to their
 * tasks, records and saves the state; returns how many results arrived. */
size_t tui_jobs_collect(struct tui *ui);

/* inotify on the exercise files' directories; NULL (errno set) when unavailable. */
struct tui_watch *tui_watch_start(struct tui *ui);
void tui_watch_stop(struct tui_watch *w);
int tui_watch_fd(const struct tui_watch *w);
/* Reads the pending events and queues every task whose exercise file was saved with new
 * content; returns how many were queued. */
size_t tui_watch_handle(struct tui *ui);

#endif /* GRADER_TUI_SCREEN_H */

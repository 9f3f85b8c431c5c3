/* tui_screen.h — what the TUI's modules share: the interface state, the screen contract, the
 * messages screens post to the loop, and the helpers below the screens.
 *
 * Who calls whom (no circle): the loop (tui.c) draws the screen on top of the stack and gives
 * it the keys; a screen changes the state and returns what the loop should do, and for
 * anything beyond its own state (open a pager, grade a task, edit a file) it posts a message
 * that the loop carries out after the key. Screens call only downward: the drawing helpers
 * (tui_draw.c), the pager's text (tui_lines.c), the state helpers (tui_state.c) and the engine.
 *
 * Every screen is a pair: x_draw(ui) paints rows 1 .. LINES-2 of an erased screen from the
 * state alone (it writes back only a scroll offset clamped to the window); x_key(ui, ch)
 * changes the state only. The loop owns the title bar (row 0), the key bar (row LINES-1),
 * KEY_RESIZE and the "terminal too small" screen.
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
#include "hash.h"
#include "model.h"
#include "queue.h"
#include "session.h"
#include "state.h"
#include "tui_colors.h"
#include "tui_text.h"
#include "watch.h"

/* Below this the screens cannot lay out their columns: the loop shows "terminal too small". */
#define TUI_MIN_COLS 60
#define TUI_MIN_LINES 12
#define TUI_STACK_MAX 6
#define TUI_MSG_MAX 16

enum tui_action {
    TUI_UNHANDLED = 0,  /* not this screen's key: the loop tries the global keys */
    TUI_HANDLED,        /* state unchanged on screen */
    TUI_REDRAW,         /* state changed: draw again */
    TUI_POP,            /* leave this screen */
    TUI_QUIT
};

enum tui_screen_id {
    TUI_SCREEN_LIST, TUI_SCREEN_TASK, TUI_SCREEN_PAGER, TUI_SCREEN_LOG, TUI_SCREEN_HELP,
    TUI_SCREEN_COUNT
};

/* What a screen asks of the loop. arg: a screen id, a pager kind or a task index. */
enum tui_msg_kind {
    TUI_MSG_PUSH,       /* push screen arg */
    TUI_MSG_OPEN,       /* open the pager on pager kind arg (for the selected task) */
    TUI_MSG_GRADE,      /* grade task arg now */
    TUI_MSG_PROFILE,    /* grade task arg now, with the profile under ncu */
    TUI_MSG_GRADE_ALL,  /* arg 1: every task; 0: those edited since graded */
    TUI_MSG_CANCEL,
    TUI_MSG_WATCH,      /* watch mode on / off */
    TUI_MSG_EDIT,       /* the selected task's exercise in the editor */
    TUI_MSG_RESET,      /* ask, then reset the selected task's exercise */
    TUI_MSG_QUIT
};

struct tui_msg {
    enum tui_msg_kind kind;
    size_t arg;
};

enum tui_pager_kind {
    TUI_PAGER_NOTES,
    TUI_PAGER_HINTS,
    TUI_PAGER_BUILD_LOG,
    TUI_PAGER_OUTPUT,
    TUI_PAGER_SANITIZER
};

/* A line of a pager: text and its styled spans (in order, covering the text). */
struct tui_span {
    size_t start, len;
    enum tui_role role;
    attr_t attr;
};
struct tui_line {
    char *text;
    struct tui_span *spans;
    size_t n_spans;
    int indent;             /* cells a wrapped continuation row is indented by */
};

struct tui_pager {
    enum tui_pager_kind kind;
    char title[256];
    struct tui_line *lines;
    size_t n_lines;
    size_t task;            /* the task whose notes / hints / log / output is shown */
    /* Notes: the Markdown, laid out again when the width changes (tables fit the window). */
    char *markdown;
    size_t markdown_len;
    char base[512];         /* the lesson's directory, relative to the root, with '/' */
    char html[600];         /* where `make notes` puts the lesson's page, and whether it has */
    int width;              /* the width the lines were laid out for */

    size_t top;             /* first visible row after wrapping */
    size_t rows;            /* wrapped rows at the last draw, for paging keys */
    int typing;             /* the search prompt has the keyboard */
    char query[128];        /* the last search, "" for none */
    size_t match;           /* line of the current match; SIZE_MAX when none */
};

struct tui {
    struct course *course;
    const struct grader_opts *opts;
    struct grading_session *session;
    int color;              /* colors in use (a color terminal and no NO_COLOR) */
    int utf8;               /* the locale encodes UTF-8: block and check-mark glyphs */
    char no_gpu[256];       /* why no GPU answered the start-up probe; "" when one did */

    enum tui_screen_id stack[TUI_STACK_MAX];
    size_t depth;
    struct tui_msg msgs[TUI_MSG_MAX];
    size_t n_msgs;

    size_t sel;             /* selected task, index in course order */
    int finding;            /* the course list's "/" has the keyboard: keys type its query */
    char find[64];          /* what was typed after "/" (a task's name or lesson, in part) */
    size_t list_top;        /* first visible row of the course list */
    size_t detail_top;      /* first visible row of the task details */
    size_t detail_rows;     /* rows of the task details at the last draw */
    size_t help_top;        /* first visible row of the help */
    struct tui_pager pager;
    size_t *hints_shown;    /* per task: hints revealed so far */

    struct grade_queue *queue;
    struct exercise_watch *watch;   /* NULL while watch mode is off */
    size_t confirm_reset;   /* 1 + the task whose reset waits for y/N; 0 when none */

    char msg[512];          /* one-line message on the key bar until the next key */
    enum tui_role msg_role;
    unsigned tick;          /* spinner phase, advanced while grading */
};

/* --------------------------------------------------------------- screens */
#define TUI_SCREEN(x)                                                                      \
    void tui_##x##_draw(struct tui *ui);                                                   \
    enum tui_action tui_##x##_key(struct tui *ui, int ch);                                 \
    extern const char tui_##x##_keys[];
TUI_SCREEN(list)    /* tui_list.c: the course */
TUI_SCREEN(task)    /* tui_task.c: one task's details */
TUI_SCREEN(pager)   /* tui_pager.c: notes, hints, output, sanitizer log */
TUI_SCREEN(log)     /* tui_log.c: the build log */
TUI_SCREEN(help)    /* tui_help.c: keys and outcomes */
TUI_SCREEN(small)   /* tui_small.c: "terminal too small" */
#undef TUI_SCREEN

/* --------------------------------------------------------------- state (tui_state.c) */
/* A message for the loop, carried out after the current key. */
void tui_post(struct tui *ui, enum tui_msg_kind kind, size_t arg);
enum tui_screen_id tui_top(const struct tui *ui);
/* The key bar's message until the next key. */
void tui_message(struct tui *ui, enum tui_role role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The reason to show after the outcome's words: a skip's "SKIP:" / "skipped:" prefix
 * dropped, so that "skipped: SKIP: no GPU" reads "skipped: no GPU". */
const char *tui_reason(enum grader_outcome o, const char *reason);
/* A lesson.ini forbid word as the student knows the library: a mangled-name fragment such as
 * "3cub" (the length prefix that matches namespace cub) reads "cub". */
const char *tui_forbid_word(const char *w);
/* 1 and *st while task is being graded. */
int tui_is_running(const struct tui *ui, size_t task, struct grade_queue_status *st);
/* Edited since it was graded: the shown result describes an older file. */
int tui_is_stale(const struct task *t);
/* path relative to the course root when it is under it. */
const char *tui_relative(const struct tui *ui, const char *path);

/* --------------------------------------------------------------- pager text (tui_lines.c) */
/* Appends s[0..len) as one line in role r (tabs expanded, terminal escapes and control bytes
 * removed: a build log or a student's output must not drive the terminal). */
void tui_lines_add(struct tui_pager *p, const char *s, size_t len, enum tui_role r);
void tui_lines_addf(struct tui_pager *p, enum tui_role r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A file's lines; classify (may be NULL) picks each line's role and may mark a leading
 * location (its byte count in *loc). 0, or -1 with errno. */
typedef enum tui_role (*tui_line_class)(const char *s, size_t *loc);
int tui_lines_file(struct tui_pager *p, const char *path, tui_line_class classify);
/* p->markdown laid out for `width` cells. */
void tui_lines_markdown(struct tui_pager *p, int width, int utf8);
/* Frees the lines (not the markdown). */
void tui_lines_clear(struct tui_pager *p);
/* Frees everything and resets the pager. */
void tui_pager_free(struct tui_pager *p);
/* The pager's view: shared by the pager and build log screens. */
void tui_pager_view_draw(struct tui *ui);
enum tui_action tui_pager_view_key(struct tui *ui, int ch);

/* --------------------------------------------------------------- loaders (tui_pages.c) */
/* Fills ui->pager with kind for the selected task; the screen to show it on, or -1 with
 * ui->msg saying why not (no notes, no build log yet, no hints). */
int tui_pages_open(struct tui *ui, enum tui_pager_kind kind);
/* tui_log.c: the build log's lines (locations, errors and warnings marked). */
int tui_log_load(struct tui *ui, struct tui_pager *p, const struct task *t,
                 const struct task_result *r);

/* --------------------------------------------------------------- grading (tui_grading.c) */
int tui_grading_start(struct tui *ui);
void tui_grading_stop(struct tui *ui);
/* Queue a task; force 0 skips it while its saved result is fresh. 1 when queued. */
int tui_grade(struct tui *ui, size_t task, int force);
/* Grades task now with the profile under ncu (the task screen's p), saying so. */
void tui_profile(struct tui *ui, size_t task);
void tui_grade_all(struct tui *ui, int force);
void tui_cancel(struct tui *ui);
/* Results of finished gradings to their tasks, the state saved, the cursor moved on after a
 * pass of the selected task; returns how many arrived. */
size_t tui_collect(struct tui *ui);
void tui_watch_toggle(struct tui *ui);
/* After watch_fd was readable or the watch timeout passed: queue the saved tasks. */
void tui_watch_handle(struct tui *ui);

/* --------------------------------------------------------------- student (tui_student.c) */
void tui_edit(struct tui *ui, size_t task);
void tui_reset_ask(struct tui *ui, size_t task);
/* The key after tui_reset_ask: 'y' resets, anything else keeps the file. */
void tui_reset_answer(struct tui *ui, int ch);

/* --------------------------------------------------------------- drawing (tui_draw.c) */
void tui_colors_init(int use_color);
attr_t tui_attr(enum tui_role r);
/* Paints s at (y, x) in role r, clipped to maxw columns (an ellipsis marks a cut); returns
 * the columns used. extra is OR-ed into the attribute (A_REVERSE for the selected row). */
int tui_put(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *s);
int tui_putf(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Paints len bytes of s (no ellipsis); returns the columns used. */
int tui_putn(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *s, size_t len);
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

#endif /* GRADER_TUI_SCREEN_H */

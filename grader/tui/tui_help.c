/* tui_help.c — the keys, and what every outcome word means, in the colors the list uses. */
#include <stddef.h>

#include "tui_screen.h"

const char tui_help_keys[] = "\xe2\x86\x91\xe2\x86\x93/jk scroll   any other key: back";

struct key_help {
    const char *keys, *what;
};

static const struct key_help keys[] = {
    { "\xe2\x86\x91 \xe2\x86\x93  j k", "move / scroll" },
    { "PgUp PgDn  g G", "page, top, end" },
    { "J K", "next / previous lesson (list)" },
    { "Enter", "build and grade the selected task now" },
    { "\xe2\x86\x92  d  Tab", "the task's details: cases, mismatches, speed, sanitizer" },
    { "[ ]", "previous / next task (details)" },
    { "p", "grade the task with its profile under ncu: why it is slower (details)" },
    { "a", "grade every task whose file changed since its last grading" },
    { "A", "regrade every task" },
    { "x", "cancel the grading in progress and the queue" },
    { "w", "watch mode: saving an exercise file rebuilds and regrades it" },
    { "e", "open the exercise in your editor ($VISUAL, $EDITOR, else vi)" },
    { "r", "reset the exercise to its shipped version (asks y/N; yours kept as .bak-<time>)" },
    { "n", "the lesson's notes" },
    { "h", "a hint (again: the next one)" },
    { "l", "the build log of the last grading (Enter there regrades)" },
    { "o", "what your program printed (never trusted for grading)" },
    { "s", "compute-sanitizer's own report of the last grading" },
    { "/", "the course list: find a task by its name (Enter or Esc: done)" },
    { "/  n  N", "search a pager; next / previous match" },
    { "\xe2\x86\x90  q  Esc", "back; q on the course list quits" },
    { "Q  Ctrl-C", "quit from anywhere" },
};

/* Paints virtual row r at its screen row when it is in view; returns that row or -1. */
static int row_y(const struct tui *ui, int r)
{
    int y = 1 + r - (int)ui->help_top;
    return y >= 1 && y <= LINES - 2 ? y : -1;
}

static int help_rows(void)
{
    return 1 + (int)(sizeof keys / sizeof keys[0]) + 2 + OUTCOME_COUNT;
}

void tui_help_draw(struct tui *ui)
{
    int max_top = help_rows() - (LINES - 2);
    if ((int)ui->help_top > max_top)
        ui->help_top = max_top > 0 ? (size_t)max_top : 0;
    int r = 0, y;
    if ((y = row_y(ui, r++)) >= 0)
        tui_put(y, 2, COLS - 4, TUI_C_HEADING, 0, "Keys");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if ((y = row_y(ui, r++)) < 0)
            continue;
        tui_put(y, 4, 16, TUI_C_KEY, 0, keys[i].keys);
        tui_put(y, 22, COLS - 23, TUI_C_NORMAL, 0, keys[i].what);
    }
    r++;
    if ((y = row_y(ui, r++)) >= 0)
        tui_put(y, 2, COLS - 4, TUI_C_HEADING, 0, "Outcomes");
    /* Every outcome, in precedence order, with its meaning: all from outcome.h's table. */
    for (int i = 0; i < OUTCOME_COUNT; i++) {
        if ((y = row_y(ui, r++)) < 0)
            continue;
        enum grader_outcome o = (enum grader_outcome)i;
        tui_put(y, 4, 1, tui_outcome_role(o), 0, tui_outcome_glyph(o, ui->utf8));
        tui_put(y, 6, 18, tui_outcome_role(o), 0, outcome_name(o));
        tui_put(y, 25, COLS - 26, TUI_C_NORMAL, 0, outcome_meaning(o));
    }
}

enum tui_action tui_help_key(struct tui *ui, int ch)
{
    switch (ch) {
    case KEY_DOWN:
    case 'j':
    case ' ':
        ui->help_top++;
        return TUI_REDRAW;
    case KEY_UP:
    case 'k':
        ui->help_top -= ui->help_top > 0;
        return TUI_REDRAW;
    case '?':
        return TUI_UNHANDLED; /* the loop's '?' closes help */
    case 'Q':
        return TUI_QUIT;
    default:
        ui->help_top = 0;
        return TUI_POP;
    }
}

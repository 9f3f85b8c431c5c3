/* tui_pager.c — the pager screen: text the student reads rather than acts on (the lesson's
 * notes, the hints revealed so far, what the exercise printed, the sanitizer's log). Lines are
 * word-wrapped to the window at every draw, continuation rows indented under a list item's
 * text, so a resize re-flows the text instead of cutting it; the notes are laid out again for
 * the new width (their tables fit the window). The build log screen (tui_log.c) uses the same
 * view. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tui_screen.h"

const char tui_pager_keys[] =
    "\xe2\x86\x91\xe2\x86\x93/jk scroll  Space/b page  g/G top/end  / search  n/N next/prev  "
    "h next hint  q back";

/* Wrapped rows of line l in width cells. */
static size_t line_rows(const struct tui_line *l, int width)
{
    size_t rows = 0;
    const char *s = l->text;
    int w = width;
    do {
        int used;
        s += tui_wrap(s, w, &used);
        rows++;
        w = width - l->indent > 10 ? width - l->indent : width;
    } while (*s);
    return rows;
}

/* Bytes [from, from + len) of line l at (y, x), each piece in its span's look. */
static void draw_piece(const struct tui_line *l, int y, int x, int maxw, size_t from,
                       size_t len, attr_t hit)
{
    for (size_t k = 0; k < l->n_spans && maxw > 0; k++) {
        const struct tui_span *sp = &l->spans[k];
        size_t a = sp->start > from ? sp->start : from;
        size_t b = sp->start + sp->len < from + len ? sp->start + sp->len : from + len;
        if (a >= b)
            continue;
        int used = tui_putn(y, x, maxw, sp->role, sp->attr | hit, l->text + a, b - a);
        x += used;
        maxw -= used;
    }
}

/* Paints the rows of line i that fall in the window; *row counts rows from the top. */
static void draw_line(const struct tui_pager *p, size_t i, size_t *row, int y0, int height,
                      int width)
{
    const struct tui_line *l = &p->lines[i];
    attr_t hit = i == p->match ? A_REVERSE : 0;
    const char *s = l->text;
    int x = 1, w = width;
    do {
        int used;
        size_t len = tui_wrap(s, w, &used);
        if (*row >= p->top && *row < p->top + (size_t)height)
            draw_piece(l, y0 + (int)(*row - p->top), x, w, (size_t)(s - l->text), len, hit);
        s += len;
        (*row)++;
        if (width - l->indent > 10) {
            x = 1 + l->indent;
            w = width - l->indent;
        }
    } while (*s);
}

void tui_pager_view_draw(struct tui *ui)
{
    struct tui_pager *p = &ui->pager;
    int height = LINES - 3, width = COLS - 2;
    if (p->markdown && p->width != width)
        tui_lines_markdown(p, width, ui->utf8);
    size_t rows = 0;
    for (size_t i = 0; i < p->n_lines; i++)
        rows += line_rows(&p->lines[i], width);
    p->rows = rows;
    if (p->top + (size_t)height > rows)
        p->top = rows > (size_t)height ? rows - (size_t)height : 0;
    size_t row = 0;
    for (size_t i = 0; i < p->n_lines && row < p->top + (size_t)height; i++)
        draw_line(p, i, &row, 1, height, width);

    int y = LINES - 2;
    if (p->typing) {
        tui_putf(y, 1, COLS - 2, TUI_C_KEY, 0, "/%s_", p->query);
        tui_put(y, COLS - 28, 27, TUI_C_DIM, 0, "Enter: find   Esc: cancel");
        return;
    }
    size_t last = p->top + (size_t)height < rows ? p->top + (size_t)height : rows;
    tui_putf(y, 1, COLS - 2, TUI_C_DIM, 0, "rows %zu-%zu of %zu  %3.0f%%%s%s",
             rows ? p->top + 1 : 0, last, rows,
             rows ? 100.0 * (double)last / (double)rows : 100.0,
             p->query[0] ? "   search: " : "", p->query);
}

void tui_pager_draw(struct tui *ui)
{
    tui_pager_view_draw(ui);
}

/* The wrapped row at which line `line` starts. */
static size_t row_of_line(const struct tui_pager *p, size_t line)
{
    size_t rows = 0;
    for (size_t i = 0; i < line && i < p->n_lines; i++)
        rows += line_rows(&p->lines[i], COLS - 2);
    return rows;
}

/* Moves to the next (dir > 0) or previous line holding the query, case-insensitively,
 * wrapping around the text; a message when there is none. */
static void find(struct tui *ui, int dir)
{
    struct tui_pager *p = &ui->pager;
    if (!p->query[0] || p->n_lines == 0)
        return;
    size_t from = p->match;
    for (size_t k = 1; k <= p->n_lines; k++) {
        size_t i;
        if (from == SIZE_MAX)
            i = dir > 0 ? k - 1 : p->n_lines - k;
        else
            i = dir > 0 ? (from + k) % p->n_lines : (from + p->n_lines - k) % p->n_lines;
        if (strcasestr(p->lines[i].text, p->query)) {
            p->match = i;
            p->top = row_of_line(p, i);
            p->top = p->top > 2 ? p->top - 2 : 0;   /* a little context above the match */
            return;
        }
    }
    p->match = SIZE_MAX;
    tui_message(ui, TUI_C_WRONG, "not found: %s", p->query);
}

/* The search prompt owns every key until Enter or Esc. */
static enum tui_action prompt_key(struct tui *ui, int ch)
{
    struct tui_pager *p = &ui->pager;
    size_t len = strlen(p->query);
    if (ch == 27) {
        p->typing = 0;
        p->query[0] = '\0';
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        p->typing = 0;
        p->match = SIZE_MAX;
        find(ui, 1);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len > 0)
            p->query[len - 1] = '\0';
    } else if (ch >= ' ' && ch < 256 && len + 1 < sizeof p->query) {
        p->query[len] = (char)ch;
        p->query[len + 1] = '\0';
    }
    return TUI_REDRAW;
}

/* Scrolling keys; TUI_UNHANDLED for any other. */
static enum tui_action scroll_key(struct tui_pager *p, int ch)
{
    size_t page = LINES > 4 ? (size_t)LINES - 4 : 1;
    size_t was = p->top;
    switch (ch) {
    case KEY_UP:
    case 'k':
        p->top -= p->top > 0;
        break;
    case KEY_DOWN:
    case 'j':
    case '\n':
    case '\r':
        p->top++;
        break;
    case KEY_PPAGE:
    case 'b':
        p->top = p->top > page ? p->top - page : 0;
        break;
    case KEY_NPAGE:
    case ' ':
    case 'f':
        p->top += page;
        break;
    case KEY_HOME:
    case 'g':
        p->top = 0;
        break;
    case KEY_END:
    case 'G':
        p->top = p->rows;
        break;
    default:
        return TUI_UNHANDLED;
    }
    /* p->top past the end is pulled back by the next draw. */
    return p->top == was ? TUI_HANDLED : TUI_REDRAW;
}

enum tui_action tui_pager_view_key(struct tui *ui, int ch)
{
    struct tui_pager *p = &ui->pager;
    if (p->typing)
        return prompt_key(ui, ch);
    switch (ch) {
    case '/':
        p->typing = 1;
        p->query[0] = '\0';
        return TUI_REDRAW;
    case 'n':
    case 'N':
        /* Without a search, n is the global "notes" key. */
        if (!p->query[0])
            return TUI_UNHANDLED;
        find(ui, ch == 'n' ? 1 : -1);
        return TUI_REDRAW;
    case KEY_LEFT:
    case 'q':
    case 27:
        return TUI_POP;
    default:
        return scroll_key(p, ch);
    }
}

enum tui_action tui_pager_key(struct tui *ui, int ch)
{
    return tui_pager_view_key(ui, ch);
}

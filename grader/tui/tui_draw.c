/* tui_draw.c — drawing helpers of the TUI: roles to attributes, UTF-8 aware clipping and
 * wrapping, bars, outcome glyphs. Every column count here is in display cells, not bytes,
 * so titles such as "C = A·B" and the bar glyphs line up. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui_screen.h"

struct role_def {
    short fg, bg;
    attr_t color_attr, mono_attr;
};

static const struct role_def role_defs[TUI_C_COUNT] = {
#define TUI_ROLE_DEF(name, fg, bg, attr, mono) [TUI_C_##name] = { fg, bg, attr, mono },
    TUI_ROLES(TUI_ROLE_DEF)
#undef TUI_ROLE_DEF
};

static attr_t role_attr[TUI_C_COUNT];

void tui_colors_init(int use_color)
{
    for (int r = 0; r < TUI_C_COUNT; r++) {
        if (!use_color) {
            role_attr[r] = role_defs[r].mono_attr;
            continue;
        }
        /* Pair 0 is fixed to the terminal's defaults, so role r lives in pair r + 1. */
        init_pair((short)(r + 1), role_defs[r].fg, role_defs[r].bg);
        role_attr[r] = role_defs[r].color_attr | COLOR_PAIR(r + 1);
    }
}

attr_t tui_attr(enum tui_role r)
{
    return (unsigned)r < TUI_C_COUNT ? role_attr[r] : A_NORMAL;
}

int tui_put(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *s)
{
    if (maxw <= 0 || y < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + maxw > COLS)
        maxw = COLS - x;
    int total = tui_width(s);
    int room = total > maxw ? maxw - 1 : maxw; /* keep a cell for the ellipsis */
    attr_t a = tui_attr(r) | extra;
    attron(a);
    move(y, x);
    int cols = 0;
    while (*s) {
        wchar_t wc[2] = { 0, 0 };
        int w;
        size_t len = tui_next_char(s, &wc[0], &w);
        if (cols + w > room)
            break;
        if (wc[0] < L' ')
            wc[0] = L' ';
        addnwstr(wc, 1);
        cols += w;
        s += len;
    }
    if (total > maxw && cols < maxw) {
        addstr(MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : ">");
        cols++;
    }
    attroff(a);
    return cols;
}

int tui_putf(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tui_put(y, x, maxw, r, extra, buf);
}

void tui_fill(int y, int x, enum tui_role r, attr_t extra)
{
    if (y < 0 || y >= LINES || x >= COLS)
        return;
    attr_t a = tui_attr(r) | extra;
    attron(a);
    mvhline(y, x, ' ', COLS - x);
    attroff(a);
}

void tui_bar(int y, int x, int width, double frac, enum tui_role done, enum tui_role todo,
             int utf8)
{
    if (width <= 0)
        return;
    if (!(frac > 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    /* Eighth blocks give the bar 8x the resolution of its cells on a UTF-8 terminal. */
    static const char *eighths[] = { "", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
                                     "\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a",
                                     "\xe2\x96\x89" };
    int steps = (int)(frac * width * (utf8 ? 8 : 1) + 0.5);
    if (steps == 0 && frac > 0)
        steps = 1;  /* something measured never draws as nothing */
    int full = utf8 ? steps / 8 : steps;
    int part = utf8 ? steps % 8 : 0;
    move(y, x);
    attron(tui_attr(done));
    for (int i = 0; i < full; i++)
        addstr(utf8 ? "\xe2\x96\x88" : "#");
    if (part)
        addstr(eighths[part]);
    attroff(tui_attr(done));
    attron(tui_attr(todo));
    for (int i = full + (part ? 1 : 0); i < width; i++)
        addstr(utf8 ? "\xe2\x96\x91" : "-");
    attroff(tui_attr(todo));
}

enum tui_role tui_outcome_role(enum grader_outcome o)
{
#define ROLE(e, key, words, junit, role, ascii, utf8, meaning) TUI_C_##role,
    static const enum tui_role roles[OUTCOME_COUNT] = { OUTCOME_TABLE(ROLE) };
#undef ROLE
    return (unsigned)o < OUTCOME_COUNT ? roles[o] : TUI_C_NOT_RUN;
}

const char *tui_outcome_glyph(enum grader_outcome o, int utf8)
{
    return outcome_glyph(o, utf8);
}

const char *tui_spinner(unsigned tick, int utf8)
{
    static const char *braille[] = { "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9",
                                     "\xe2\xa0\xb8", "\xe2\xa0\xbc", "\xe2\xa0\xb4",
                                     "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87",
                                     "\xe2\xa0\x8f" };
    static const char *ascii[] = { "|", "/", "-", "\\" };
    return utf8 ? braille[tick % 10] : ascii[tick % 4];
}

int tui_putn(int y, int x, int maxw, enum tui_role r, attr_t extra, const char *s, size_t len)
{
    char buf[2048];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return tui_put(y, x, maxw, r, extra, buf);
}

/* tui_text.c — UTF-8 text in display cells (tui_text.h). No curses, so the Markdown
 * renderer and its unit test use it without a terminal. */
#include "tui_text.h"

#include <stdlib.h>
#include <string.h>

size_t tui_next_char(const char *s, wchar_t *wc, int *w)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t len = mbrtowc(wc, s, MB_CUR_MAX, &st);
    if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
        *wc = L'?';
        *w = 1;
        return 1;
    }
    int cw = wcwidth(*wc);
    if (cw < 0) {
        *wc = L'?';
        cw = 1;
    }
    *w = cw;
    return len;
}

int tui_width(const char *s)
{
    int cols = 0;
    while (*s) {
        wchar_t wc;
        int w;
        s += tui_next_char(s, &wc, &w);
        cols += w;
    }
    return cols;
}

size_t tui_fit(const char *s, int cols, int *used)
{
    size_t at = 0;
    int width = 0;
    while (s[at]) {
        wchar_t wc;
        int w;
        size_t len = tui_next_char(s + at, &wc, &w);
        if (width + w > cols)
            break;
        width += w;
        at += len;
    }
    if (used)
        *used = width;
    return at;
}

size_t tui_wrap(const char *s, int cols, int *cols_used)
{
    int used;
    size_t fit = tui_fit(s, cols < 1 ? 1 : cols, &used);
    if (s[fit] == '\0' || fit == 0) {
        if (fit == 0 && s[0]) { /* a character wider than the row: give it the row anyway */
            wchar_t wc;
            int w;
            fit = tui_next_char(s, &wc, &w);
            used = w;
        }
        *cols_used = used;
        return fit;
    }
    /* Break after the last space in reach, unless that leaves the row mostly empty. */
    size_t brk = fit;
    while (brk > 0 && s[brk - 1] != ' ')
        brk--;
    if (brk > fit / 3) {
        int w = 0;
        for (size_t at = 0; at < brk;) {
            wchar_t wc;
            int cw;
            at += tui_next_char(s + at, &wc, &cw);
            w += cw;
        }
        *cols_used = w;
        return brk;
    }
    *cols_used = used;
    return fit;
}


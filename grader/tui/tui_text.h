/* tui_text.h — measuring UTF-8 text in display cells (no curses): widths, clipping and word
 * wrap, shared by the drawing helpers and the Markdown renderer. */
#ifndef GRADER_TUI_TEXT_H
#define GRADER_TUI_TEXT_H

#include <stddef.h>
#include <wchar.h>

/* One character of s: its length in bytes (>= 1) and its width in cells (>= 0). Bytes that
 * are not valid in the locale count as one cell each and come back as '?'. */
size_t tui_next_char(const char *s, wchar_t *wc, int *w);
/* Display columns of a UTF-8 string. */
int tui_width(const char *s);
/* Bytes of s that fit in cols display columns; *used gets their width (may be NULL). */
size_t tui_fit(const char *s, int cols, int *used);
/* Bytes of s that make the next row of at most cols columns, breaking after a space when
 * one is in reach; *cols_used gets the row's width. Never 0 for a non-empty s. */
size_t tui_wrap(const char *s, int cols, int *cols_used);

#endif /* GRADER_TUI_TEXT_H */

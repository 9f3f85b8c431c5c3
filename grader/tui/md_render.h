/* md_render.h — lesson notes (Markdown, through md4c) as lines for the pager. No curses, so
 * a unit test checks what the student will read.
 *
 * Headings, emphasis, inline code and code blocks, lists, block quotes and rules become lines
 * whose spans name a style (the pager maps styles to colour roles); Markdown's own marks (#,
 * **, backticks, list markers) are gone. Tables are laid out for the window's width as aligned
 * columns, cells wrapped inside their column; links are their text; an image is its caption
 * and path, "[figure: caption — lessons/L/figures/x.svg]", since a terminal cannot show it.
 */
#ifndef GRADER_MD_RENDER_H
#define GRADER_MD_RENDER_H

#include <stddef.h>

enum md_style {
    MD_TEXT = 0,
    MD_HEADING,
    MD_STRONG,
    MD_EMPH,
    MD_CODE,      /* inline code and code blocks */
    MD_LINK,
    MD_FIGURE,    /* an image's caption and path */
    MD_DIM        /* quote bars, rules, table borders */
};

struct md_span {
    size_t start, len;          /* bytes of the line's text */
    enum md_style style;
};

struct md_line {
    char *text;                 /* UTF-8, no control characters */
    struct md_span *spans;      /* in order, covering the whole text */
    size_t n_spans;
    int indent;                 /* cells a wrapped continuation row is indented by */
};

struct md_doc {
    struct md_line *lines;
    size_t n_lines;
};

/* Renders text[0..size) for a window `width` cells wide (tables are laid out to fit; other
 * lines are left for the pager to wrap). `base` goes before an image's relative path (e.g.
 * "lessons/02-memory-spaces/"), utf8 picks the bullet and border glyphs. 0, or -1 when md4c
 * gave up (out of memory); *out is then empty. */
int md_render(const char *text, size_t size, int width, const char *base, int utf8,
              struct md_doc *out);
void md_doc_free(struct md_doc *d);

#endif /* GRADER_MD_RENDER_H */

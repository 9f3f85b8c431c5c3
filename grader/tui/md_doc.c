/* md_doc.c — a line being built and the document it is added to (md_render_impl.h), for the
 * renderer (md_render.c) and its tables (md_table.c). */
#include <stdlib.h>
#include <string.h>

#include "md_render_impl.h"
#include "util.h"

void md_buf_add(struct md_buf *b, const char *s, size_t n, enum md_style st)
{
    if (b->len + n * 8 + 1 > b->cap) {
        b->cap = 2 * b->cap + n * 8 + 64;
        b->text = xrealloc(b->text, b->cap);
    }
    size_t start = b->len;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\t')
            b->text[b->len++] = ' ';
        else if (c >= 0x20 && c != 0x7f)
            b->text[b->len++] = (char)c;
    }
    b->text[b->len] = '\0';
    if (b->len == start)
        return;
    struct md_span *last = b->n_spans ? &b->spans[b->n_spans - 1] : NULL;
    if (last && last->style == st && last->start + last->len == start) {
        last->len += b->len - start;
        return;
    }
    if (b->n_spans == b->cap_spans) {
        b->cap_spans = 2 * b->cap_spans + 8;
        b->spans = xrealloc(b->spans, b->cap_spans * sizeof *b->spans);
    }
    b->spans[b->n_spans++] = (struct md_span){ start, b->len - start, st };
}

void md_buf_adds(struct md_buf *b, const char *s, enum md_style st)
{
    md_buf_add(b, s, strlen(s), st);
}

void md_buf_pad(struct md_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        md_buf_add(b, " ", 1, MD_TEXT);
}

void md_doc_push(struct md_doc *d, struct md_buf *b, int indent)
{
    d->lines = xrealloc(d->lines, (d->n_lines + 1) * sizeof *d->lines);
    d->lines[d->n_lines++] = (struct md_line){
        .text = b->text ? b->text : xstrdup(""), .spans = b->spans, .n_spans = b->n_spans,
        .indent = indent };
    memset(b, 0, sizeof *b);
}

void md_buf_free(struct md_buf *b)
{
    free(b->text);
    free(b->spans);
    memset(b, 0, sizeof *b);
}

void md_doc_free(struct md_doc *d)
{
    for (size_t i = 0; i < d->n_lines; i++) {
        free(d->lines[i].text);
        free(d->lines[i].spans);
    }
    free(d->lines);
    d->lines = NULL;
    d->n_lines = 0;
}

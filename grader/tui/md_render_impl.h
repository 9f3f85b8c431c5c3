/* md_render_impl.h — what md_render.c and md_table.c share: a line being built and the
 * document it is added to (md_doc.c, below them both), and a table (md_table.c). Not for other
 * modules. */
#ifndef GRADER_MD_RENDER_IMPL_H
#define GRADER_MD_RENDER_IMPL_H

#include "md_render.h"

struct md_buf {
    char *text;
    size_t len, cap;
    struct md_span *spans;
    size_t n_spans, cap_spans;
};

/* Appends s[0..n) in style st (control characters dropped, tabs as spaces). */
void md_buf_add(struct md_buf *b, const char *s, size_t n, enum md_style st);
void md_buf_adds(struct md_buf *b, const char *s, enum md_style st);
/* Appends n blanks. */
void md_buf_pad(struct md_buf *b, int n);
/* Moves the buffer into a new line of d (the buffer is empty after). */
void md_doc_push(struct md_doc *d, struct md_buf *b, int indent);
void md_buf_free(struct md_buf *b);

/* A table: rows of plain-text cells, the first n_head rows the header. */
struct md_table {
    char ***cells;              /* cells[r][c] */
    size_t *n_cells;            /* per row */
    size_t n_rows;
    size_t n_head;
    int align[64];              /* per column: 0 left, 1 centre, 2 right */
};
void md_table_row(struct md_table *t);
void md_table_cell(struct md_table *t, int align);
/* Appends text to the last cell. */
void md_table_text(struct md_table *t, const char *s, size_t n);
/* Lays the table out in `width` cells after `lead` (already on every line) and adds its
 * lines to d; frees the table. */
void md_table_emit(struct md_table *t, struct md_doc *d, int width, const char *lead, int utf8);

#endif /* GRADER_MD_RENDER_IMPL_H */

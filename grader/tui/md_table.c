/* md_table.c — a Markdown table as aligned columns that fit the window (md_render_impl.h).
 *
 * Each column gets its widest cell when the table fits; otherwise narrow columns keep their
 * width and the wide ones share what is left, their cells wrapped inside the column, so a
 * row may take several lines but the columns stay aligned. A cell breaks between words, and
 * every column is as wide as its longest word (an identifier: cudaMemPrefetchAsync) when the
 * window has room for that; a word wider than its column breaks where an identifier has a
 * seam (after _ : . / ( , or before a capital that follows a small letter). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_render_impl.h"
#include "tui_text.h"
#include "util.h"

#define MIN_WORD 8 /* a column's least width when the longest words cannot all fit */

void md_table_row(struct md_table *t)
{
    t->cells = xrealloc(t->cells, (t->n_rows + 1) * sizeof *t->cells);
    t->n_cells = xrealloc(t->n_cells, (t->n_rows + 1) * sizeof *t->n_cells);
    t->cells[t->n_rows] = NULL;
    t->n_cells[t->n_rows] = 0;
    t->n_rows++;
}

void md_table_cell(struct md_table *t, int align)
{
    if (t->n_rows == 0)
        md_table_row(t);
    size_t r = t->n_rows - 1, c = t->n_cells[r];
    t->cells[r] = xrealloc(t->cells[r], (c + 1) * sizeof **t->cells);
    t->cells[r][c] = xstrdup("");
    t->n_cells[r]++;
    if (c < sizeof t->align / sizeof t->align[0])
        t->align[c] = align;
}

void md_table_text(struct md_table *t, const char *s, size_t n)
{
    if (t->n_rows == 0 || t->n_cells[t->n_rows - 1] == 0)
        md_table_cell(t, 0);
    size_t r = t->n_rows - 1, c = t->n_cells[r] - 1;
    size_t old = strlen(t->cells[r][c]);
    char *cell = xrealloc(t->cells[r][c], old + n + 1);
    for (size_t i = 0; i < n; i++)
        cell[old + i] = (unsigned char)s[i] < 0x20 ? ' ' : s[i];
    cell[old + n] = '\0';
    t->cells[r][c] = cell;
}

static size_t column_count(const struct md_table *t)
{
    size_t n = 0;
    for (size_t r = 0; r < t->n_rows; r++)
        if (t->n_cells[r] > n)
            n = t->n_cells[r];
    return n < 64 ? n : 64;
}

/* Display width of the longest word of s. */
static int longest_word(const char *s)
{
    int best = 0;
    while (*s) {
        size_t n = strcspn(s, " ");
        char word[256];
        snprintf(word, sizeof word, "%.*s", (int)n, s);
        if (tui_width(word) > best)
            best = tui_width(word);
        s += n;
        s += strspn(s, " ");
    }
    return best;
}

/* The sum of the columns' longest words, each cut to cap. */
static int floor_at(const int *word, size_t nc, int cap)
{
    int sum = 0;
    for (size_t c = 0; c < nc; c++)
        sum += word[c] < cap ? word[c] : cap;
    return sum;
}

/* Column widths: the widest cell of each when they fit in avail. Else every column keeps
 * room for its longest word, the longest ones cut (not below MIN_WORD) until they fit, and the
 * room left goes to the columns in proportion to how much more their widest cell needs. */
static void layout(const struct md_table *t, size_t nc, int avail, int *w)
{
    int nat[64], min[64], word[64], total = 0, floor = 0, cap = 0;
    for (size_t c = 0; c < nc; c++) {
        nat[c] = word[c] = 1;
        for (size_t r = 0; r < t->n_rows; r++) {
            if (c >= t->n_cells[r])
                continue;
            int cw = tui_width(t->cells[r][c]), lw = longest_word(t->cells[r][c]);
            nat[c] = cw > nat[c] ? cw : nat[c];
            word[c] = lw > word[c] ? lw : word[c];
        }
        total += nat[c];
        w[c] = nat[c];
        cap = word[c] > cap ? word[c] : cap;
    }
    if (total <= avail)
        return;
    while (cap > MIN_WORD && floor_at(word, nc, cap) > avail)
        cap--;
    for (size_t c = 0; c < nc; c++) {
        min[c] = word[c] < cap ? word[c] : cap;
        floor += min[c];
    }
    long left = avail > floor ? avail - floor : 0, want = total - floor;
    for (size_t c = 0; c < nc; c++)
        w[c] = min[c] + (want ? (int)(left * (nat[c] - min[c]) / want) : 0);
}

/* Where an identifier may break: after _ : . / ( , or between a small letter and a capital. */
static int seam_before(const char *s, size_t at)
{
    char a = s[at - 1], b = s[at];
    return strchr("_:./(,", a) != NULL ? b != ':' && b != '\0'
                                        : a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z';
}

/* The bytes of s that fill a row of w cells, and their width in *used: up to the last space
 * in reach (the next word fits the next row: the column is as wide as its longest word when it
 * can be); a word wider than the row up to its last seam in reach, else as much as fits. */
static size_t cell_wrap(const char *s, int w, int *used)
{
    size_t fit = tui_fit(s, w < 1 ? 1 : w, used);
    if (s[fit] == '\0' || s[fit] == ' ' || fit == 0)
        return fit ? fit : tui_wrap(s, w, used);
    size_t brk = fit;
    while (brk > 0 && s[brk - 1] != ' ')
        brk--;
    for (size_t at = fit - 1; brk == 0 && at > 0; at--)
        if (seam_before(s, at))
            brk = at;
    if (brk == 0)
        return fit;
    *used = 0;
    for (size_t at = 0; at < brk;) {
        wchar_t wc;
        int cw;
        at += tui_next_char(s + at, &wc, &cw);
        *used += cw;
    }
    return brk;
}

/* The next row of cell s wrapped to w cells: *start and the length, *pos past it. */
static size_t cell_row(const char *s, size_t *pos, int w, size_t *start, int *used)
{
    while (s[*pos] == ' ')
        (*pos)++;
    *start = *pos;
    *used = 0;
    size_t len = s[*pos] ? cell_wrap(s + *pos, w, used) : 0;
    *pos += len;
    while (len && s[*start + len - 1] == ' ') { /* no trailing blank counts against it */
        len--;
        (*used)--;
    }
    return len;
}

static int has_more(const char *s, size_t pos)
{
    while (s[pos] == ' ')
        pos++;
    return s[pos] != '\0';
}

/* One table row, as many lines as its tallest cell needs. */
static void emit_row(const struct md_table *t, size_t r, size_t nc, const int *w,
                     struct md_doc *d, const char *lead, const char *sep)
{
    size_t pos[64] = { 0 };
    enum md_style st = r < t->n_head ? MD_STRONG : MD_TEXT;
    int more;
    do {
        struct md_buf b = { 0 };
        md_buf_adds(&b, lead, MD_DIM);
        more = 0;
        for (size_t c = 0; c < nc; c++) {
            const char *s = c < t->n_cells[r] ? t->cells[r][c] : "";
            size_t start;
            int used;
            size_t len = cell_row(s, &pos[c], w[c], &start, &used);
            int pad = w[c] - used;
            int before = t->align[c] == 2 ? pad : t->align[c] == 1 ? pad / 2 : 0;
            md_buf_pad(&b, before);
            md_buf_add(&b, s + start, len, st);
            if (c + 1 < nc) {
                md_buf_pad(&b, pad - before);
                md_buf_adds(&b, sep, MD_DIM);
            }
            more |= has_more(s, pos[c]);
        }
        md_doc_push(d, &b, 0);
    } while (more);
}

/* The line under the header: a rule per column, crossed where the separators are. */
static void emit_rule(size_t nc, const int *w, struct md_doc *d, const char *lead, int utf8)
{
    struct md_buf b = { 0 };
    md_buf_adds(&b, lead, MD_DIM);
    const char *h = utf8 ? "\xe2\x94\x80" : "-";
    for (size_t c = 0; c < nc; c++) {
        for (int i = 0; i < w[c] + (c ? 1 : 0) + (c + 1 < nc ? 1 : 0); i++)
            md_buf_adds(&b, h, MD_DIM);
        if (c + 1 < nc)
            md_buf_adds(&b, utf8 ? "\xe2\x94\xbc" : "+", MD_DIM);
    }
    md_doc_push(d, &b, 0);
}

static void table_free(struct md_table *t)
{
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cells[r]; c++)
            free(t->cells[r][c]);
        free(t->cells[r]);
    }
    free(t->cells);
    free(t->n_cells);
    free(t);
}

void md_table_emit(struct md_table *t, struct md_doc *d, int width, const char *lead, int utf8)
{
    size_t nc = column_count(t);
    const char *sep = utf8 ? " \xe2\x94\x82 " : " | ";
    int w[64];
    if (nc) {
        layout(t, nc, width - tui_width(lead) - 3 * (int)(nc - 1), w);
        for (size_t r = 0; r < t->n_rows; r++) {
            emit_row(t, r, nc, w, d, lead, sep);
            if (r + 1 == t->n_head)
                emit_rule(nc, w, d, lead, utf8);
        }
    }
    table_free(t);
}

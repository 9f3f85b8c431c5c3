/* md_render.c — Markdown notes as styled lines (md_render.h), from md4c's callbacks.
 *
 * md4c walks the document as nested blocks and spans; this keeps the context it needs (list
 * nesting and numbering, quote depth, the style of the innermost span, an open table or code
 * block) and builds one line at a time. A paragraph is one line: the pager wraps it, indenting
 * the continuation rows under the list item's text. */
#include "md_render_impl.h"

#include <md4c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_text.h"
#include "util.h"

#define MD_DEPTH 16

struct list_level {
    int ordered;
    unsigned next;              /* the next item's number */
};

struct md_state {
    struct md_doc *doc;
    struct md_buf line;
    int width, utf8;
    const char *base;

    struct list_level lists[MD_DEPTH];
    int n_lists;
    int quotes;
    int bullet_pending;         /* the next line starts a list item */
    int line_open;              /* the line has its lead (quote bars, indent, bullet) */
    int indent;                 /* cells of lead on the current line */

    enum md_style styles[MD_DEPTH];
    int n_styles;
    int in_code;
    int in_html;
    struct md_table *table;     /* while inside a table */
};

/* The quote bars and list indent every line of the current block starts with, and the
 * item's bullet on its first line. */
static void open_line(struct md_state *m)
{
    if (m->line_open)
        return;
    m->line_open = 1;
    m->indent = 0;
    for (int i = 0; i < m->quotes; i++) {
        md_buf_adds(&m->line, m->utf8 ? "\xe2\x94\x82 " : "| ", MD_DIM);
        m->indent += 2;
    }
    for (int i = 0; i < m->n_lists; i++) {
        int last = i == m->n_lists - 1;
        int w = m->lists[i].ordered ? 4 : 1;
        char mark[16];
        if (!(last && m->bullet_pending))
            snprintf(mark, sizeof mark, "%*s", w, "");
        else if (m->lists[i].ordered)
            snprintf(mark, sizeof mark, "%3u.", m->lists[i].next++ % 1000);
        else
            snprintf(mark, sizeof mark, "%s", m->utf8 ? "\xe2\x80\xa2" : "*");
        md_buf_adds(&m->line, mark, MD_TEXT);
        md_buf_pad(&m->line, 1);
        m->indent += w + 1;
    }
    m->bullet_pending = 0;
}

/* Ends the current line, if it holds anything. */
static void flush(struct md_state *m)
{
    if (m->line_open || m->line.len)
        md_doc_push(m->doc, &m->line, m->indent);
    m->line_open = 0;
}

/* One empty line between blocks, never two, never at the top. */
static void blank(struct md_state *m)
{
    flush(m);
    struct md_doc *d = m->doc;
    if (d->n_lines && d->lines[d->n_lines - 1].text[0] && m->quotes == 0)
        md_doc_push(d, &m->line, 0);
}

static void add(struct md_state *m, const char *s, size_t n, enum md_style st)
{
    if (m->table) {
        md_table_text(m->table, s, n);
        return;
    }
    open_line(m);
    md_buf_add(&m->line, s, n, st);
}

static enum md_style style(const struct md_state *m)
{
    return m->n_styles ? m->styles[m->n_styles - 1] : MD_TEXT;
}

/* ------------------------------------------------------------------ md4c callbacks */
static void enter_list(struct md_state *m, int ordered, unsigned start)
{
    if (m->n_lists == 0)
        blank(m);
    else
        flush(m);
    if (m->n_lists < MD_DEPTH)
        m->lists[m->n_lists++] = (struct list_level){ ordered, start };
}

static int enter_block(MD_BLOCKTYPE type, void *detail, void *user)
{
    struct md_state *m = user;
    switch (type) {
    case MD_BLOCK_QUOTE:
        blank(m);
        m->quotes++;
        break;
    case MD_BLOCK_UL:
        enter_list(m, 0, 0);
        break;
    case MD_BLOCK_OL:
        enter_list(m, 1, ((const MD_BLOCK_OL_DETAIL *)detail)->start);
        break;
    case MD_BLOCK_LI:
        flush(m);
        m->bullet_pending = 1;
        break;
    case MD_BLOCK_HR:
        blank(m);
        open_line(m);
        for (int i = m->indent; i < m->width && i < 72; i++)
            md_buf_adds(&m->line, m->utf8 ? "\xe2\x94\x80" : "-", MD_DIM);
        blank(m);
        break;
    case MD_BLOCK_H:
        blank(m);
        m->styles[m->n_styles++] = MD_HEADING;
        break;
    case MD_BLOCK_CODE:
        blank(m);
        m->in_code = 1;
        break;
    case MD_BLOCK_HTML:
        m->in_html = 1;
        break;
    case MD_BLOCK_P:
        if (m->line.len && !m->bullet_pending)
            flush(m);
        break;
    case MD_BLOCK_TABLE:
        blank(m);
        m->table = xcalloc(1, sizeof *m->table);
        break;
    case MD_BLOCK_TR:
        md_table_row(m->table);
        break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD: {
        MD_ALIGN a = ((const MD_BLOCK_TD_DETAIL *)detail)->align;
        md_table_cell(m->table, a == MD_ALIGN_RIGHT ? 2 : a == MD_ALIGN_CENTER ? 1 : 0);
        break;
    }
    case MD_BLOCK_THEAD:
    case MD_BLOCK_TBODY:
    case MD_BLOCK_DOC:
        break;
    }
    return 0;
}

static int leave_block(MD_BLOCKTYPE type, void *detail, void *user)
{
    struct md_state *m = user;
    (void)detail;
    switch (type) {
    case MD_BLOCK_QUOTE:
        flush(m);
        m->quotes--;
        blank(m);
        break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        flush(m);
        m->n_lists--;
        if (m->n_lists == 0)
            blank(m);
        break;
    case MD_BLOCK_H:
        m->n_styles--;
        blank(m);
        break;
    case MD_BLOCK_CODE:
        m->in_code = 0;
        blank(m);
        break;
    case MD_BLOCK_HTML:
        m->in_html = 0;
        break;
    case MD_BLOCK_P:
        if (m->n_lists)
            flush(m);
        else
            blank(m);
        break;
    case MD_BLOCK_THEAD:
        m->table->n_head = m->table->n_rows;
        break;
    case MD_BLOCK_TABLE: {
        struct md_table *t = m->table;
        m->table = NULL;
        open_line(m);
        char *lead = xstrdup(m->line.text);
        md_buf_free(&m->line);
        m->line_open = 0;
        md_table_emit(t, m->doc, m->width, lead, m->utf8);
        free(lead);
        blank(m);
        break;
    }
    default:
        break;
    }
    return 0;
}

static void push_style(struct md_state *m, enum md_style st)
{
    if (m->n_styles < MD_DEPTH)
        m->styles[m->n_styles++] = st;
}

static int enter_span(MD_SPANTYPE type, void *detail, void *user)
{
    struct md_state *m = user;
    (void)detail;
    switch (type) {
    case MD_SPAN_EM:
        push_style(m, style(m) == MD_HEADING ? MD_HEADING : MD_EMPH);
        break;
    case MD_SPAN_STRONG:
    case MD_SPAN_U:
        push_style(m, style(m) == MD_HEADING ? MD_HEADING : MD_STRONG);
        break;
    case MD_SPAN_CODE:
        push_style(m, MD_CODE);
        break;
    case MD_SPAN_A:
    case MD_SPAN_WIKILINK:
        push_style(m, MD_LINK);
        break;
    case MD_SPAN_IMG:
        add(m, "[figure: ", 9, MD_FIGURE);
        push_style(m, MD_FIGURE);
        break;
    default:
        push_style(m, style(m));
        break;
    }
    return 0;
}

static int leave_span(MD_SPANTYPE type, void *detail, void *user)
{
    struct md_state *m = user;
    if (m->n_styles)
        m->n_styles--;
    if (type == MD_SPAN_IMG) {
        const MD_ATTRIBUTE *src = &((const MD_SPAN_IMG_DETAIL *)detail)->src;
        int absolute = src->size && (src->text[0] == '/' || memchr(src->text, ':', src->size));
        const char *dash = m->utf8 ? " \xe2\x80\x94 " : " - ";
        add(m, dash, strlen(dash), MD_FIGURE);
        if (!absolute && m->base)
            add(m, m->base, strlen(m->base), MD_FIGURE);
        add(m, src->text, src->size, MD_FIGURE);
        add(m, "]", 1, MD_FIGURE);
    }
    return 0;
}

/* The few entities notes use; others are shown as written. */
static void add_entity(struct md_state *m, const char *s, size_t n)
{
    static const char *const names[][2] = {
        { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
        { "&nbsp;", " " }, { "&times;", "\xc3\x97" }, { "&mdash;", "\xe2\x80\x94" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i][0]) == n && memcmp(names[i][0], s, n) == 0) {
            add(m, names[i][1], strlen(names[i][1]), style(m));
            return;
        }
    add(m, s, n, style(m));
}

/* Code block text comes with its newlines: one line each, indented, in the code style. */
static void add_code_lines(struct md_state *m, const char *s, size_t n)
{
    while (n) {
        const char *nl = memchr(s, '\n', n);
        size_t len = nl ? (size_t)(nl - s) : n;
        if (!m->line_open) {
            open_line(m);
            md_buf_pad(&m->line, 4);
            m->indent += 4;
        }
        md_buf_add(&m->line, s, len, MD_CODE);
        if (!nl)
            break;
        flush(m);
        s = nl + 1;
        n -= len + 1;
    }
}

static int text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *user)
{
    struct md_state *m = user;
    if (m->in_html || type == MD_TEXT_HTML)
        return 0;
    if (m->in_code && !m->table) {
        add_code_lines(m, s, n);
        return 0;
    }
    switch (type) {
    case MD_TEXT_SOFTBR:
        add(m, " ", 1, style(m));
        break;
    case MD_TEXT_BR:
        if (m->table)
            add(m, " ", 1, MD_TEXT);
        else
            flush(m);
        break;
    case MD_TEXT_ENTITY:
        add_entity(m, s, n);
        break;
    case MD_TEXT_NULLCHAR:
        break;
    default:
        add(m, s, n, style(m));
        break;
    }
    return 0;
}

int md_render(const char *src, size_t size, int width, const char *base, int utf8,
              struct md_doc *out)
{
    memset(out, 0, sizeof *out);
    struct md_state m = { .doc = out, .width = width > 20 ? width : 20, .base = base,
                          .utf8 = utf8 };
    MD_PARSER parser = {
        .abi_version = 0,
        .flags = MD_DIALECT_GITHUB,
        .enter_block = enter_block,
        .leave_block = leave_block,
        .enter_span = enter_span,
        .leave_span = leave_span,
        .text = text,
    };
    int rc = md_parse(src, (MD_SIZE)size, &parser, &m);
    flush(&m);
    md_buf_free(&m.line);
    if (m.table) /* md4c stopped inside a table */
        md_table_emit(m.table, out, m.width, "", utf8);
    /* No empty line at the end. */
    while (out->n_lines && !out->lines[out->n_lines - 1].text[0]) {
        out->n_lines--;
        free(out->lines[out->n_lines].text);
        free(out->lines[out->n_lines].spans);
    }
    if (rc != 0) {
        md_doc_free(out);
        return -1;
    }
    return 0;
}

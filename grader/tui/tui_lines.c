/* tui_lines.c — the text a pager shows: lines with styled spans, from a file (a build log,
 * what the exercise printed, a sanitizer log), from formatted text (hints), or from the
 * lesson's Markdown laid out by md_render. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_render.h"
#include "tui_screen.h"
#include "util.h"

#define PAGER_MAX_BYTES (4u << 20)
#define PAGER_MAX_LINES 100000

static void push_line(struct tui_pager *p, struct tui_line l)
{
    p->lines = xrealloc(p->lines, (p->n_lines + 1) * sizeof *p->lines);
    p->lines[p->n_lines++] = l;
}

/* Tabs expanded, CSI sequences and other control bytes dropped. */
static char *clean(const char *s, size_t len)
{
    char *out = xcalloc(len * 8 + 1, 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\t') {
            do
                out[o++] = ' ';
            while (o % 8);
        } else if (c == 0x1b) {
            /* CSI: ESC [ parameters final-byte; anything else: ESC and one byte. */
            if (i + 1 < len && s[i + 1] == '[') {
                i += 2;
                while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    i++;
            } else {
                i++;
            }
        } else if (c >= 0x20 && c != 0x7f) {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
    return out;
}

/* One line of two spans: the first loc bytes as a location, the rest in role r. */
static void add_classified(struct tui_pager *p, const char *s, size_t len, enum tui_role r,
                           size_t loc)
{
    if (p->n_lines >= PAGER_MAX_LINES)
        return;
    struct tui_line l = { .text = clean(s, len) };
    size_t n = strlen(l.text);
    loc = loc < n ? loc : 0;
    l.spans = xcalloc(2, sizeof *l.spans);
    if (loc)
        l.spans[l.n_spans++] = (struct tui_span){ 0, loc, TUI_C_LOCATION, 0 };
    l.spans[l.n_spans++] = (struct tui_span){ loc, n - loc, r, 0 };
    push_line(p, l);
}

void tui_lines_add(struct tui_pager *p, const char *s, size_t len, enum tui_role r)
{
    add_classified(p, s, len, r, 0);
}

void tui_lines_addf(struct tui_pager *p, enum tui_role r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    tui_lines_add(p, s, strlen(s), r);
    free(s);
}

int tui_lines_file(struct tui_pager *p, const char *path, tui_line_class classify)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char *buf = xcalloc(PAGER_MAX_BYTES + 1, 1);
    size_t len = fread(buf, 1, PAGER_MAX_BYTES, f);
    int truncated = !feof(f);
    fclose(f);
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && buf[i] != '\n')
            continue;
        size_t end = i;
        if (end > start && buf[end - 1] == '\r')
            end--;
        if (i < len || end > start) {
            buf[end] = '\0';
            size_t loc = 0;
            enum tui_role r = classify ? classify(buf + start, &loc) : TUI_C_NORMAL;
            add_classified(p, buf + start, end - start, r, loc);
        }
        start = i + 1;
    }
    free(buf);
    if (truncated)
        tui_lines_addf(p, TUI_C_DIM, "[... cut: the file is longer than the pager reads]");
    return 0;
}

static const struct {
    enum tui_role role;
    attr_t attr;
} md_look[] = {
    [MD_TEXT] = { TUI_C_NORMAL, 0 },     [MD_HEADING] = { TUI_C_HEADING, 0 },
    [MD_STRONG] = { TUI_C_NORMAL, A_BOLD }, [MD_EMPH] = { TUI_C_NORMAL, A_UNDERLINE },
    [MD_CODE] = { TUI_C_CODE, 0 },       [MD_LINK] = { TUI_C_KEY, A_UNDERLINE },
    [MD_FIGURE] = { TUI_C_LOCATION, 0 }, [MD_DIM] = { TUI_C_DIM, 0 },
};

void tui_lines_markdown(struct tui_pager *p, int width, int utf8)
{
    tui_lines_clear(p);
    p->width = width;
    tui_lines_addf(p, TUI_C_DIM, "HTML: %s", p->html);
    tui_lines_add(p, "", 0, TUI_C_NORMAL);
    struct md_doc d;
    if (md_render(p->markdown, p->markdown_len, width, p->base, utf8, &d) != 0) {
        tui_lines_addf(p, TUI_C_WRONG, "the notes could not be read as Markdown");
        return;
    }
    for (size_t i = 0; i < d.n_lines; i++) {
        struct md_line *m = &d.lines[i];
        struct tui_line l = { .text = m->text, .indent = m->indent, .n_spans = m->n_spans };
        l.spans = xcalloc(m->n_spans + 1, sizeof *l.spans);
        for (size_t k = 0; k < m->n_spans; k++)
            l.spans[k] = (struct tui_span){ m->spans[k].start, m->spans[k].len,
                                            md_look[m->spans[k].style].role,
                                            md_look[m->spans[k].style].attr };
        free(m->spans);
        push_line(p, l);
    }
    free(d.lines);
}

void tui_lines_clear(struct tui_pager *p)
{
    for (size_t i = 0; i < p->n_lines; i++) {
        free(p->lines[i].text);
        free(p->lines[i].spans);
    }
    free(p->lines);
    p->lines = NULL;
    p->n_lines = 0;
}

void tui_pager_free(struct tui_pager *p)
{
    tui_lines_clear(p);
    free(p->markdown);
    memset(p, 0, sizeof *p);
    p->match = SIZE_MAX;
}

/* parse.c — compiler, compute-sanitizer and --list output into model records (parse.h). */
#include "parse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_protocol.h"
#include "model_impl.h"

/* Calls fn on every line of text (without the newline, '\r' trimmed). */
static void each_line(const char *text, void (*fn)(void *, char *), void *user)
{
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = xcalloc(len + 1, 1);
        memcpy(line, p, len);
        if (len && line[len - 1] == '\r')
            line[len - 1] = 0;
        fn(user, line);
        free(line);
        p = nl ? nl + 1 : NULL;
    }
}

static const char *relative(const char *file, const char *root)
{
    size_t n = root ? strlen(root) : 0;
    if (n && strncmp(file, root, n) == 0 && file[n] == '/')
        return file + n + 1;
    return file;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* ======================================================================= compiler */
struct diag_ctx {
    struct task_result *r;
    const char *root;
    size_t max, n;
};

static void add_diag(struct diag_ctx *x, const char *file, size_t file_len, int line, int col,
                     const char *severity, const char *text)
{
    if (x->n >= x->max)
        return;
    x->n++;
    struct compiler_diag *d = result_add_diag(x->r);
    char *f = xcalloc(file_len + 1, 1);
    memcpy(f, file, file_len);
    set_str(&d->file, relative(f, x->root));
    free(f);
    d->line = line;
    d->col = col;
    set_str(&d->severity, severity);
    while (*text == ' ')
        text++;
    set_str(&d->text, text);
}

/* "file:LINE:COL: severity: text" or "file:LINE: severity: text" */
static int gcc_style(struct diag_ctx *x, const char *line)
{
    static const char *const sev[] = {"fatal error", "error", "warning"};
    for (const char *c = strchr(line, ':'); c; c = strchr(c + 1, ':')) {
        const char *num = c + 1;
        size_t nl = strspn(num, "0123456789");
        if (!all_digits(num, nl) || num[nl] != ':')
            continue;
        const char *rest = num + nl + 1;
        int col = 0;
        size_t cl = strspn(rest, "0123456789");
        if (cl && rest[cl] == ':') {
            col = atoi(rest);
            rest += cl + 1;
        }
        while (*rest == ' ')
            rest++;
        for (size_t i = 0; i < 3; i++) {
            size_t sl = strlen(sev[i]);
            if (strncmp(rest, sev[i], sl) == 0 && rest[sl] == ':') {
                add_diag(x, line, (size_t)(c - line), atoi(num), col, sev[i], rest + sl + 1);
                return 1;
            }
        }
        return 0;
    }
    return 0;
}

/* nvcc's front end: "file(LINE): error: text", "file(LINE): warning #177-D: text" */
static int nvcc_style(struct diag_ctx *x, const char *line)
{
    const char *close = strstr(line, "): ");
    if (!close)
        return 0;
    const char *open = close;
    while (open > line && open[-1] != '(')
        open--;
    if (open == line || !all_digits(open, (size_t)(close - open)))
        return 0;
    const char *rest = close + 3;
    const char *severity = strncmp(rest, "error", 5) == 0     ? "error"
                           : strncmp(rest, "warning", 7) == 0 ? "warning"
                                                              : NULL;
    const char *colon = strchr(rest, ':');
    if (!severity || !colon)
        return 0;
    add_diag(x, line, (size_t)(open - 1 - line), atoi(open), 0, severity, colon + 1);
    return 1;
}

static void diag_line(void *user, char *line)
{
    struct diag_ctx *x = user;
    if (gcc_style(x, line) || nvcc_style(x, line))
        return;
    if (strncmp(line, "ptxas error", 11) == 0 || strncmp(line, "ptxas fatal", 11) == 0 ||
        strncmp(line, "nvlink error", 12) == 0) {
        const char *colon = strchr(line, ':');
        add_diag(x, "", 0, 0, 0, "error", colon ? colon + 1 : line);
    } else if (strstr(line, "undefined reference to")) {
        add_diag(x, "", 0, 0, 0, "error", strstr(line, "undefined reference to"));
    }
}

size_t parse_compiler_diags(const char *log, const char *root, struct task_result *r, size_t max)
{
    struct diag_ctx x = {.r = r, .root = root, .max = max};
    each_line(log, diag_line, &x);
    return x.n;
}

/* ======================================================================= compute-sanitizer */
#define SAN_PREFIX "========= "

/* Header lines that are not findings. */
static int san_noise(const char *h)
{
    static const char *const noise[] = {
        "COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
        "Target application returned", "Saved host backtrace", "This can be", "No ",
    };
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++)
        if (strncmp(h, noise[i], strlen(noise[i])) == 0)
            return 1;
    return 0;
}

static int san_is_race(const char *h)
{
    return strstr(h, "Race reported") != NULL;
}

/* "Error: ..." from the tool itself (not a race hazard). */
static int san_tool_error(const char *h)
{
    return strncmp(h, "Error: ", 7) == 0 && !san_is_race(h);
}

struct san_ctx {
    struct task_result *r;
    const char *tool, *root;
    size_t max, total;
    struct sanitizer_finding *cur; /* NULL once the block is done or when over max */
    int text_lines;
    char tool_error[512];
};

/* " at KERNEL+0xOFF in FILE:LINE" anywhere in s: fills the finding once. */
static void san_location(struct san_ctx *x, const char *s)
{
    struct sanitizer_finding *f = x->cur;
    if (!f || f->line)
        return;
    /* continuation lines arrive trimmed: "at KERNEL+0x..." */
    const char *at = strncmp(s, "at ", 3) == 0 ? s : strstr(s, " at ");
    const char *name = at ? at + (at == s ? 3 : 4) : NULL;
    const char *off = name ? strstr(name, "+0x") : NULL;
    const char *in = off ? strstr(off, " in ") : NULL;
    if (!in)
        return;
    char *k = xcalloc((size_t)(off - name) + 1, 1);
    memcpy(k, name, (size_t)(off - name));
    set_str(&f->kernel, k);
    free(k);
    const char *file = in + 4;
    const char *colon = strrchr(file, ':');
    if (!colon)
        return;
    size_t digits = strspn(colon + 1, "0123456789");
    if (!digits)
        return;
    char *fn = xcalloc((size_t)(colon - file) + 1, 1);
    memcpy(fn, file, (size_t)(colon - file));
    set_str(&f->file, relative(fn, x->root));
    free(fn);
    f->line = atoi(colon + 1);
}

static void san_append_text(struct san_ctx *x, const char *s)
{
    if (!x->cur || x->text_lines >= 4)
        return;
    char *t = x->cur->text[0] ? xasprintf("%s\n%s", x->cur->text, s) : xstrdup(s);
    free(x->cur->text);
    x->cur->text = t;
    x->text_lines++;
}

static void san_line(void *user, char *line)
{
    struct san_ctx *x = user;
    if (strncmp(line, SAN_PREFIX, strlen(SAN_PREFIX)) != 0)
        return;
    const char *h = line + strlen(SAN_PREFIX);
    if (*h == ' ') { /* continuation of the current block */
        const char *t = h;
        while (*t == ' ')
            t++;
        if (strncmp(t, "Host Frame", 10) == 0 || strncmp(t, "Device Frame", 12) == 0 ||
            strncmp(t, "Saved host backtrace", 20) == 0)
            return;
        san_location(x, t);
        san_append_text(x, t);
        return;
    }
    x->cur = NULL;
    if (!*h || san_noise(h))
        return;
    if (san_tool_error(h)) {
        if (!x->tool_error[0])
            snprintf(x->tool_error, sizeof x->tool_error, "%s", h);
        return;
    }
    x->total++;
    if (x->total > x->max)
        return;
    x->cur = result_add_finding(x->r);
    x->text_lines = 0;
    set_str(&x->cur->tool, x->tool);
    const char *kind = h;
    if (strncmp(kind, "Error: ", 7) == 0)
        kind += 7;
    const char *cut = strstr(kind, " at ");
    char *k = cut ? xcalloc((size_t)(cut - kind) + 1, 1) : xstrdup(kind);
    if (cut)
        memcpy(k, kind, (size_t)(cut - kind));
    set_str(&x->cur->kind, k);
    free(k);
    san_location(x, h);
    san_append_text(x, h);
}

size_t parse_sanitizer_output(const char *out, const char *tool, const char *root,
                              struct task_result *r, size_t max)
{
    struct san_ctx x = {.r = r, .tool = tool, .root = root, .max = max};
    each_line(out, san_line, &x);
    return x.total;
}

int sanitizer_tool_error(const char *out, char *buf, size_t len)
{
    struct task_result *scratch = result_new();
    struct san_ctx x = {.r = scratch, .tool = "", .root = "", .max = 0};
    each_line(out, san_line, &x);
    task_result_free(scratch);
    if (!x.tool_error[0])
        return 0;
    snprintf(buf, len, "%s", x.tool_error);
    return 1;
}

/* ======================================================================= --list */
struct list_ctx {
    struct list_case *v;
    size_t n;
};

static void list_line(void *user, char *line)
{
    struct list_ctx *x = user;
    char *tab1 = strchr(line, '\t');
    if (!tab1 || tab1 == line)
        return;
    *tab1 = 0;
    char *dims = tab1 + 1;
    char *tab2 = strchr(dims, '\t');
    const char *flags = "";
    if (tab2) {
        *tab2 = 0;
        flags = tab2 + 1;
    }
    x->v = xrealloc(x->v, (x->n + 1) * sizeof *x->v);
    struct list_case *c = &x->v[x->n++];
    c->name = xstrdup(line);
    c->dims = xstrdup(dims);
    c->flags = (strstr(flags, LAB_LIST_SPEED) ? CASE_FLAG_SPEED : 0u) |
               (strstr(flags, LAB_LIST_SMALL) ? CASE_FLAG_SMALL : 0u) |
               (strstr(flags, LAB_LIST_SANITIZE) ? CASE_FLAG_SANITIZE : 0u) |
               (strstr(flags, LAB_LIST_LARGE) ? CASE_FLAG_LARGE : 0u);
}

size_t parse_case_list(const char *text, struct list_case **out)
{
    struct list_ctx x = {0};
    each_line(text, list_line, &x);
    *out = x.v;
    return x.n;
}

void list_cases_free(struct list_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].name);
        free(c[i].dims);
    }
    free(c);
}

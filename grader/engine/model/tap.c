/* tap.c — the TAP report reader (13 as written; 14 read alike) (tap.h). */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "lab_protocol.h"
#include "model_impl.h"

char *tap_unquote(const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
        n--;
    if (n < 2 || v[0] != '"') {
        char *s = xcalloc(n + 1, 1);
        memcpy(s, v, n);
        return s;
    }
    char *s = xcalloc(n + 1, 1), *o = s;
    for (size_t i = 1; i < n; i++) {
        if (v[i] == '"')
            break; /* the closing quote */
        if (v[i] == '\\' && i + 1 < n) {
            char e = v[++i];
            *o++ = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else {
            *o++ = v[i];
        }
    }
    *o = 0;
    return s;
}

static double to_double(const char *v)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v)
        return -1;
    return d;
}

static struct tap_case *add_case(struct tap_report *r, int number, int ok, const char *name)
{
    r->cases = xrealloc(r->cases, (r->n_cases + 1) * sizeof *r->cases);
    struct tap_case *c = &r->cases[r->n_cases++];
    memset(c, 0, sizeof *c);
    c->number = number;
    c->ok = ok;
    c->name = xstrdup(name);
    c->status = xstrdup("");
    c->unit = xstrdup("");
    c->first_mismatch = xstrdup("");
    c->mismatches = xstrdup("");
    c->note = xstrdup("");
    c->time_ms = c->time_min_ms = c->time_max_ms = c->floor_ms = c->throughput = -1;
    c->max_abs_err = c->max_rel_err = -1;
    c->checked = c->bad = -1;
    return c;
}

static void yaml_key(struct tap_case *c, const char *key, const char *raw)
{
    char *v = tap_unquote(raw);
    if (strcmp(key, LAB_TAP_STATUS) == 0)
        set_str(&c->status, v);
    else if (strcmp(key, LAB_TAP_TIME_MS) == 0)
        c->time_ms = to_double(v);
    else if (strcmp(key, LAB_TAP_TIME_MIN_MS) == 0)
        c->time_min_ms = to_double(v);
    else if (strcmp(key, LAB_TAP_TIME_MAX_MS) == 0)
        c->time_max_ms = to_double(v);
    else if (strcmp(key, LAB_TAP_FLOOR_MS) == 0)
        c->floor_ms = to_double(v);
    else if (strcmp(key, LAB_TAP_THROUGHPUT) == 0)
        c->throughput = to_double(v);
    else if (strcmp(key, LAB_TAP_UNIT) == 0)
        set_str(&c->unit, v);
    else if (strcmp(key, LAB_TAP_CHECKED) == 0)
        c->checked = strtoll(v, NULL, 10);
    else if (strcmp(key, LAB_TAP_BAD) == 0)
        c->bad = strtoll(v, NULL, 10);
    else if (strcmp(key, LAB_TAP_MAX_ABS_ERR) == 0)
        c->max_abs_err = to_double(v);
    else if (strcmp(key, LAB_TAP_MAX_REL_ERR) == 0)
        c->max_rel_err = to_double(v);
    else if (strcmp(key, LAB_TAP_FIRST_MISMATCH) == 0)
        set_str(&c->first_mismatch, v);
    else if (strcmp(key, LAB_TAP_MISMATCHES) == 0)
        set_str(&c->mismatches, v);
    else if (strcmp(key, LAB_TAP_NOTE) == 0)
        set_str(&c->note, v);
    free(v);
}

/* 1 when the k characters at p are the comment key `name`. */
static int comment_key_is(const char *p, size_t k, const char *name)
{
    return k == strlen(name) && strncmp(p, name, k) == 0;
}

static void comment_line(struct tap_report *r, const char *line)
{
    const char *p = line + 1;
    while (*p == ' ')
        p++;
    const char *colon = strchr(p, ':');
    if (!colon)
        return;
    size_t k = (size_t)(colon - p);
    char *v = tap_unquote(colon + 1);
    if (comment_key_is(p, k, LAB_TAP_PROGRAM))
        set_str(&r->program, v);
    else if (comment_key_is(p, k, LAB_TAP_TASK))
        set_str(&r->task, v);
    else if (comment_key_is(p, k, LAB_TAP_DEVICE))
        set_str(&r->device, v);
    else if (comment_key_is(p, k, LAB_TAP_SEED)) {
        char *end;
        unsigned long long s = strtoull(v, &end, 10);
        if (end != v) {
            r->seed = s;
            r->has_seed = 1;
        }
    }
    free(v);
}

/* "ok 3 - name" / "not ok 3 - name # SKIP why": the name ends at " # " (a TAP directive). */
static int case_line(struct tap_report *r, const char *line)
{
    int ok;
    const char *p;
    if (strncmp(line, "ok ", 3) == 0) {
        ok = 1;
        p = line + 3;
    } else if (strncmp(line, "not ok ", 7) == 0) {
        ok = 0;
        p = line + 7;
    } else {
        return 0;
    }
    char *end;
    long number = strtol(p, &end, 10);
    p = end;
    while (*p == ' ')
        p++;
    if (*p == '-' && p[1] == ' ')
        p += 2;
    char *name = xstrdup(p);
    char *directive = strstr(name, " # ");
    if (directive)
        *directive = 0;
    size_t n = strlen(name);
    while (n && (name[n - 1] == ' ' || name[n - 1] == '\r'))
        name[--n] = 0;
    add_case(r, (int)number, ok, name);
    free(name);
    return 1;
}

void tap_parse_string(const char *text, struct tap_report *r)
{
    memset(r, 0, sizeof *r);
    r->planned = -1;
    r->program = xstrdup("");
    r->task = xstrdup("");
    r->device = xstrdup("");
    int in_yaml = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = xcalloc(len + 1, 1);
        memcpy(line, p, len);
        p += len + (nl ? 1 : 0);

        const char *t = line;
        while (*t == ' ')
            t++;
        /* A line at column 0 ends a block that was never closed (a report cut short). */
        if (in_yaml && t == line && *t)
            in_yaml = 0;
        if (in_yaml) {
            if (strncmp(t, "...", 3) == 0) {
                in_yaml = 0;
            } else if (r->n_cases) {
                const char *colon = strchr(t, ':');
                if (colon) {
                    char *key = xcalloc((size_t)(colon - t) + 1, 1);
                    memcpy(key, t, (size_t)(colon - t));
                    yaml_key(&r->cases[r->n_cases - 1], key, colon + 1);
                    free(key);
                }
            }
        } else if (t != line && strncmp(t, "---", 3) == 0) {
            in_yaml = 1;
        } else if (line[0] == '#') {
            comment_line(r, line);
        } else if (strncmp(line, "1..", 3) == 0) {
            r->planned = strtol(line + 3, NULL, 10);
        } else {
            case_line(r, line);
        }
        free(line);
    }
}

int tap_parse_file(const char *path, struct tap_report *r)
{
    /* Reports are small; a huge one (a forged flood) is read up to 16 MiB only. */
    char *buf = read_text_file(path, (size_t)16 << 20);
    tap_parse_string(buf ? buf : "", r);
    if (!buf)
        return -1;
    free(buf);
    return 0;
}

void tap_report_free(struct tap_report *r)
{
    for (size_t i = 0; i < r->n_cases; i++) {
        struct tap_case *c = &r->cases[i];
        free(c->name);
        free(c->status);
        free(c->unit);
        free(c->first_mismatch);
        free(c->mismatches);
        free(c->note);
    }
    free(r->cases);
    free(r->program);
    free(r->task);
    free(r->device);
    memset(r, 0, sizeof *r);
}

const struct tap_case *tap_find(const struct tap_report *r, const char *name)
{
    for (size_t i = 0; i < r->n_cases; i++)
        if (strcmp(r->cases[i].name, name) == 0)
            return &r->cases[i];
    return NULL;
}

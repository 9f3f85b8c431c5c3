/* ncu_csv.c — Nsight Compute's CSV tables (ncu_csv.h). */
#include "ncu_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A list of malloc'd fields. */
struct fields {
    char **f;
    size_t n, cap;
};

static void fields_push(struct fields *r, char *s)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 32;
        r->f = xrealloc(r->f, r->cap * sizeof *r->f);
    }
    r->f[r->n++] = s;
}

static void fields_free(struct fields *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->f[i]);
    free(r->f);
    memset(r, 0, sizeof *r);
}

/* One CSV line (up to its end, len bytes) as fields, unquoted. */
static void split_line(const char *p, size_t len, struct fields *out)
{
    const char *end = p + len;
    for (;;) {
        struct strbuf b = {0};
        int quoted = p < end && *p == '"';
        p += quoted;
        while (p < end) {
            if (quoted && *p == '"' && p + 1 < end && p[1] == '"') {
                sb_add(&b, p, 1);
                p += 2;
                continue;
            }
            if (quoted ? *p == '"' : *p == ',')
                break;
            sb_add(&b, p++, 1);
        }
        fields_push(out, sb_take(&b));
        if (quoted && p < end && *p == '"')
            p++;
        if (p >= end || *p != ',')
            return;
        p++;
    }
}

/* Each row to exactly n fields (missing ones ""; extra ones dropped), appended to cells. */
static void take_row(struct fields *row, size_t n, struct fields *cells)
{
    for (size_t i = 0; i < n; i++)
        fields_push(cells, i < row->n ? row->f[i] : xstrdup(""));
    for (size_t i = n; i < row->n; i++)
        free(row->f[i]);
    row->n = 0;
}

int ncu_table_read(const char *text, struct ncu_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    struct fields header = {0}, units = {0}, cells = {0}, row = {0};
    size_t lines = 0;
    for (const char *p = text ? text : ""; *p;) {
        size_t len = strcspn(p, "\r\n");
        if (*p == '"') {
            split_line(p, len, &row);
            if (lines == 0) {
                header = row;
                memset(&row, 0, sizeof row);
            } else if (lines == 1 && row.n && row.f[0][0] == 0) {
                take_row(&row, header.n, &units); /* the units row: no ID */
            } else {
                take_row(&row, header.n, &cells);
            }
            lines++;
        }
        p += len;
        p += strspn(p, "\r\n");
    }
    fields_free(&row);
    if (header.n == 0) {
        snprintf(err, errlen, "no table in ncu's output");
        fields_free(&units);
        return -1;
    }
    t->n_cols = header.n;
    t->name = header.f;
    if (units.n == 0)
        for (size_t i = 0; i < header.n; i++)
            fields_push(&units, xstrdup(""));
    t->unit = units.f;
    t->cell = cells.f;
    t->n_rows = cells.n / header.n;
    return 0;
}

void ncu_table_free(struct ncu_table *t)
{
    for (size_t i = 0; i < t->n_cols; i++) {
        free(t->name[i]);
        free(t->unit[i]);
    }
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cell[i]);
    free(t->name);
    free(t->unit);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

int ncu_table_col(const struct ncu_table *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++)
        if (strcmp(t->name[i], name) == 0)
            return (int)i;
    return -1;
}

const char *ncu_table_cell(const struct ncu_table *t, size_t row, int col)
{
    if (col < 0 || (size_t)col >= t->n_cols || row >= t->n_rows)
        return "";
    return t->cell[row * t->n_cols + (size_t)col];
}

double ncu_number(const char *s)
{
    char digits[128];
    size_t n = 0;
    for (; *s && n + 1 < sizeof digits; s++)
        if (*s != ',')
            digits[n++] = *s;
    digits[n] = 0;
    if (*s)
        return NAN; /* longer than any number */
    char *end;
    double v = strtod(digits, &end);
    return n && !*end && isfinite(v) ? v : NAN;
}

double ncu_unit_ms(const char *u)
{
    static const struct {
        const char *name, *abbrev;
        double ms;
    } units[] = {{"nsecond", "ns", 1e-6}, {"usecond", "us", 1e-3}, {"msecond", "ms", 1},
                 {"second", "s", 1e3}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(u, units[i].name) == 0 || strcmp(u, units[i].abbrev) == 0)
            return units[i].ms;
    return 0;
}

void ncu_table_shape(const struct ncu_table *t, size_t row, char *grid, size_t gl, char *block,
                     size_t bl)
{
    snprintf(grid, gl, "%s", ncu_table_cell(t, row, ncu_table_col(t, "Grid Size")));
    snprintf(block, bl, "%s", ncu_table_cell(t, row, ncu_table_col(t, "Block Size")));
    if (!grid[0])
        snprintf(grid, gl, "%s", ncu_table_cell(t, row, ncu_table_col(t, "launch__grid_size")));
    if (!block[0])
        snprintf(block, bl, "%s", ncu_table_cell(t, row, ncu_table_col(t, "launch__block_size")));
}

int ncu_table_same_launch(const struct ncu_table *a, size_t i, const struct ncu_table *b,
                          size_t j)
{
    if (strcmp(ncu_table_cell(a, i, ncu_table_col(a, "Kernel Name")),
               ncu_table_cell(b, j, ncu_table_col(b, "Kernel Name"))) != 0)
        return 0;
    char ga[48], ba[48], gb[48], bb[48];
    ncu_table_shape(a, i, ga, sizeof ga, ba, sizeof ba);
    ncu_table_shape(b, j, gb, sizeof gb, bb, sizeof bb);
    return strcmp(ga, gb) == 0 && strcmp(ba, bb) == 0;
}

double ncu_table_time_ms(const struct ncu_table *t, size_t row)
{
    int dur = ncu_table_col(t, "gpu__time_duration.sum");
    return dur < 0 ? NAN : ncu_number(ncu_table_cell(t, row, dur)) * ncu_unit_ms(t->unit[dur]);
}

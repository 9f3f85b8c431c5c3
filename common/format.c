// Human-readable numbers, and the aligned table every demo prints (and writes as CSV).
#include "lab.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void lab_fmt_rate(double per_second, const char *unit, char *buf, size_t len)
{
    // unit is "FLOP/s", "B/s" style with a G prefix given by the caller ("GFLOP/s", "GB/s"):
    // values are in that unit; promote to T above 1000 so columns stay readable.
    if (per_second >= 1000.0 && unit[0] == 'G')
        snprintf(buf, len, "%.3g T%s", per_second / 1000.0, unit + 1);
    else
        snprintf(buf, len, "%.3g %s", per_second, unit);
}

void lab_fmt_ms(double ms, char *buf, size_t len)
{
    if (ms >= 1000.0)
        snprintf(buf, len, "%.3g s", ms / 1000.0);
    else if (ms >= 1.0)
        snprintf(buf, len, "%.3g ms", ms);
    else
        snprintf(buf, len, "%.3g us", ms * 1000.0);
}

void lab_fmt_pct(double fraction, char *buf, size_t len) { snprintf(buf, len, "%.1f%%", 100.0 * fraction); }

// ------------------------------------------------------------------ tables
struct lab_table {
    char *title;
    size_t ncols, nrows, cap;
    char **cols;
    char **cells; // nrows * ncols
};

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

lab_table *lab_table_new(const char *title, const char *const *columns, size_t ncols)
{
    lab_table *t = calloc(1, sizeof *t);
    if (!t || !(t->cols = calloc(ncols, sizeof *t->cols)))
        abort();
    t->title = xstrdup(title);
    t->ncols = ncols;
    for (size_t c = 0; c < ncols; c++)
        t->cols[c] = xstrdup(columns[c]);
    return t;
}

void lab_table_row(lab_table *t, const char *const *cells)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = realloc(t->cells, t->cap * t->ncols * sizeof *t->cells);
        if (!t->cells)
            abort();
    }
    for (size_t c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = xstrdup(cells[c]);
    t->nrows++;
}

void lab_table_rowf(lab_table *t, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    // Split on '|' into exactly ncols cells; missing cells are empty.
    const char *cells[64];
    char *p = line;
    size_t n = t->ncols < 64 ? t->ncols : 64;
    for (size_t c = 0; c < n; c++) {
        cells[c] = p ? p : "";
        char *bar = p ? strchr(p, '|') : NULL;
        if (bar)
            *bar = 0;
        p = bar ? bar + 1 : NULL;
    }
    lab_table_row(t, cells);
}

size_t lab_table_rows(const lab_table *t) { return t->nrows; }

const char *lab_table_cell(const lab_table *t, size_t row, size_t col)
{
    return row < t->nrows && col < t->ncols ? t->cells[row * t->ncols + col] : NULL;
}

// Display width in characters (UTF-8 aware: continuation bytes take no column).
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static int looks_numeric(const char *s)
{
    char *end;
    if (!*s)
        return 0;
    strtod(s, &end);
    return end != s;
}

void lab_table_print(const lab_table *t, FILE *out)
{
    size_t *w = calloc(t->ncols, sizeof *w);
    if (!w)
        abort();
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = text_width(t->cols[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t cw = text_width(t->cells[r * t->ncols + c]);
            if (cw > w[c])
                w[c] = cw;
        }
    }
    if (t->title[0])
        fprintf(out, "\n%s\n", t->title);
    size_t total = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        fprintf(out, "%s%s%*s", c ? "  " : "", t->cols[c], (int)(w[c] - text_width(t->cols[c])), "");
        total += w[c] + (c ? 2 : 0);
    }
    fputc('\n', out);
    for (size_t i = 0; i < total; i++)
        fputc('-', out);
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            int pad = (int)(w[c] - text_width(s));
            // Numbers right-aligned so their digits line up; words left-aligned.
            if (looks_numeric(s) && c > 0)
                fprintf(out, "%s%*s%s", c ? "  " : "", pad, "", s);
            else
                fprintf(out, "%s%s%*s", c ? "  " : "", s, c + 1 < t->ncols ? pad : 0, "");
        }
        fputc('\n', out);
    }
    fflush(out);
    free(w);
}

size_t lab_csv_cell(const char *s, int as_text, char *out)
{
    int formula = as_text && s[0] && strchr("=+-@\t\r", s[0]) != NULL;
    size_t n = 0;
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        n = strlen(s);
        memcpy(out, s, n + 1);
        return n;
    }
    out[n++] = '"';
    if (formula)
        out[n++] = '\'';
    for (; *s; s++) {
        if (*s == '"')
            out[n++] = '"';
        out[n++] = *s;
    }
    out[n++] = '"';
    out[n] = '\0';
    return n;
}

static void csv_field(FILE *f, const char *s)
{
    char *cell = malloc(LAB_CSV_CELL_MAX(strlen(s)));
    if (!cell) { // out of memory: the cell as it is, which a reader sees as wrong, not lost
        fputs(s, f);
        return;
    }
    lab_csv_cell(s, 0, cell);
    fputs(cell, f);
    free(cell);
}

int lab_table_write_csv(const lab_table *t, const char *dir, const char *name)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (size_t c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, t->cols[c]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', f);
            csv_field(f, t->cells[r * t->ncols + c]);
        }
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

int lab_table_emit(lab_table *t, const char *csv_dir, const char *name)
{
    lab_table_print(t, stdout);
    putchar('\n');
    int rc = csv_dir ? lab_table_write_csv(t, csv_dir, name) : 0;
    lab_table_free(t);
    return rc;
}

void lab_table_free(lab_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    for (size_t c = 0; c < t->ncols; c++)
        free(t->cols[c]);
    free(t->cells);
    free(t->cols);
    free(t->title);
    free(t);
}

// The machine-readable report: TAP 13, one flat YAML block per case.
#include "lab.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct lab_report {
    FILE *f;
    size_t planned, written;
};

const char *lab_status_name(lab_status s)
{
    static const char *const names[] = {LAB_STATUS_PASS, LAB_STATUS_FAIL, LAB_STATUS_ERROR,
                                        LAB_STATUS_SKIP};
    return s <= LAB_SKIPPED ? names[s] : LAB_STATUS_ERROR;
}

// The version line and the comments every report starts with.
static void write_header(FILE *f, const char *program, const char *task, uint64_t seed)
{
    fprintf(f, "TAP version 13\n# " LAB_TAP_PROGRAM ": %s\n# " LAB_TAP_TASK ": %s\n# " LAB_TAP_SEED
            ": %llu\n", program, task, (unsigned long long)seed);
}

lab_report *lab_report_open(const char *path, const char *program, const char *task,
                            uint64_t seed, size_t planned)
{
    lab_report *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->planned = planned;
    if (!path)
        return r;
    if (!(r->f = fopen(path, "w"))) {
        perror(path);
        free(r);
        return NULL;
    }
    write_header(r->f, program, task, seed);
    if (planned)
        fprintf(r->f, "1..%zu\n", planned);
    fflush(r->f);
    return r;
}

int lab_report_skip_all(const char *path, const char *program, const char *task, uint64_t seed,
                        const char *why)
{
    if (!path)
        return 0;
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    write_header(f, program, task, seed);
    fprintf(f, "1..0 # SKIP %s\n", why);
    return fclose(f) == 0 ? 0 : -1;
}

void lab_report_comment(lab_report *r, const char *fmt, ...)
{
    if (!r->f)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("# ", r->f);
    vfprintf(r->f, fmt, ap);
    fputc('\n', r->f);
    va_end(ap);
    fflush(r->f);
}

static void yaml_string(FILE *f, const char *key, const char *s)
{
    fprintf(f, "  %s: \"", key);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputs("\"\n", f);
}

/* "  KEY: value" with a printf-style value. */
static void yaml_value(FILE *f, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(f, "  %s: ", key);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
}

static void report_timing(FILE *f, const lab_case_result *c)
{
    yaml_value(f, LAB_TAP_TIME_MS, "%.6g", c->timing.median_ms);
    yaml_value(f, LAB_TAP_TIME_MIN_MS, "%.6g", c->timing.min_ms);
    yaml_value(f, LAB_TAP_TIME_MAX_MS, "%.6g", c->timing.max_ms);
    yaml_value(f, LAB_TAP_REPS, "%d", c->timing.reps);
    yaml_value(f, LAB_TAP_THROUGHPUT, "%.6g", c->throughput);
    yaml_value(f, LAB_TAP_UNIT, "%s", c->unit ? c->unit : "");
}

static void report_mismatches(FILE *f, const lab_case_result *c)
{
    const lab_compare_result *m = &c->cmp;
    char one[160], all[LAB_MAX_SHOWN * 162] = "";
    for (size_t i = 0; i < m->shown; i++) {
        lab_mismatch_format(&m->first[i], c->cols, one, sizeof one);
        if (i == 0)
            yaml_string(f, LAB_TAP_FIRST_MISMATCH, one);
        if (i)
            strcat(all, "; ");
        strcat(all, one);
    }
    yaml_string(f, LAB_TAP_MISMATCHES, all);
}

void lab_report_case(lab_report *r, const lab_case_result *c)
{
    r->written++;
    if (!r->f)
        return;
    FILE *f = r->f;
    fprintf(f, "%s %zu - %s\n  ---\n", c->status == LAB_PASS || c->status == LAB_SKIPPED ? "ok" : "not ok",
            r->written, c->name);
    yaml_value(f, LAB_TAP_STATUS, "%s", lab_status_name(c->status));
    if (c->timing.reps > 0)
        report_timing(f, c);
    if (c->floor_ms > 0)
        yaml_value(f, LAB_TAP_FLOOR_MS, "%.6g", c->floor_ms);
    if (c->reps_checked > 0)
        yaml_value(f, LAB_TAP_REPS_CHECKED, "%d", c->reps_checked);
    const lab_compare_result *m = &c->cmp;
    yaml_value(f, LAB_TAP_CHECKED, "%zu", m->checked);
    yaml_value(f, LAB_TAP_BAD, "%zu", m->bad);
    yaml_value(f, LAB_TAP_MAX_ABS_ERR, "%.6g", m->max_abs_err);
    yaml_value(f, LAB_TAP_MAX_REL_ERR, "%.6g", m->max_rel_err);
    if (m->shown)
        report_mismatches(f, c);
    if (m->note[0])
        yaml_string(f, LAB_TAP_NOTE, m->note);
    if (m->check[0])
        yaml_string(f, LAB_TAP_CHECK, m->check);
    fputs("  ...\n", f);
    fflush(f);
}

int lab_report_close(lab_report *r)
{
    int rc = 0;
    if (r->f) {
        if (!r->planned)
            fprintf(r->f, "1..%zu\n", r->written);
        rc = fclose(r->f) == 0 ? 0 : -1;
    }
    free(r);
    return rc;
}

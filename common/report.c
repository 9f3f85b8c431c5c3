// The machine-readable report: TAP 14, one flat YAML block per case.
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
    static const char *const names[] = {"pass", "fail", "error", "skip"};
    return s <= LAB_SKIPPED ? names[s] : "error";
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
    fprintf(r->f, "TAP version 14\n# program: %s\n# task: %s\n# seed: %llu\n", program, task,
            (unsigned long long)seed);
    if (planned)
        fprintf(r->f, "1..%zu\n", planned);
    fflush(r->f);
    return r;
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

void lab_report_case(lab_report *r, const lab_case_result *c)
{
    r->written++;
    if (!r->f)
        return;
    FILE *f = r->f;
    fprintf(f, "%s %zu - %s\n  ---\n  status: %s\n", c->status == LAB_PASS || c->status == LAB_SKIPPED ? "ok" : "not ok",
            r->written, c->name, lab_status_name(c->status));
    if (c->timing.reps > 0) {
        fprintf(f, "  time_ms: %.6g\n  time_min_ms: %.6g\n  time_max_ms: %.6g\n  reps: %d\n",
                c->timing.median_ms, c->timing.min_ms, c->timing.max_ms, c->timing.reps);
        fprintf(f, "  throughput: %.6g\n  unit: %s\n", c->throughput, c->unit ? c->unit : "");
    }
    if (c->floor_ms > 0)
        fprintf(f, "  floor_ms: %.6g\n", c->floor_ms);
    if (c->reps_checked > 0)
        fprintf(f, "  reps_checked: %d\n", c->reps_checked);
    const lab_compare_result *m = &c->cmp;
    fprintf(f, "  checked: %zu\n  bad: %zu\n  max_abs_err: %.6g\n  max_rel_err: %.6g\n", m->checked,
            m->bad, m->max_abs_err, m->max_rel_err);
    if (m->shown) {
        char one[160], all[LAB_MAX_SHOWN * 162] = "";
        for (size_t i = 0; i < m->shown; i++) {
            lab_mismatch_format(&m->first[i], c->cols, one, sizeof one);
            if (i == 0)
                yaml_string(f, "first_mismatch", one);
            if (i)
                strcat(all, "; ");
            strcat(all, one);
        }
        yaml_string(f, "mismatches", all);
    }
    if (m->note[0])
        yaml_string(f, "note", m->note);
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

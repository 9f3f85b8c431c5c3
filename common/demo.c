// A demo's version registry, and everything a demo derives from it: --help, --list, the range
// check, the selection, the device header, the tables and the exit status.
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const lab_demo_version *lab_demo_version_at(const lab_demo *d, size_t i)
{
    return (const lab_demo_version *)(const void *)((const char *)d->versions + i * d->stride);
}

static int has_blank(const char *s)
{
    return strpbrk(s, " \t\r\n") != NULL;
}

// What is wrong with an entry that should carry version `id`, or NULL.
static const char *entry_problem(const lab_demo_version *v, int id)
{
    if (v->id != id)
        return "ids must count up by one";
    if (!v->name || !*v->name || has_blank(v->name))
        return "its name must be one word";
    if (!v->description || !*v->description || strpbrk(v->description, "\t\r\n"))
        return "its description must be one line";
    if (!v->fn)
        return "it has no function";
    return NULL;
}

// The rules the derived output relies on: one-word names (so that --list splits cleanly),
// one-line descriptions, and ids without gaps (so that "versions 1..9" names them all).
static int registry_ok(const lab_demo *d)
{
    if (!d->lesson || !d->title || !d->versions || d->n_versions == 0 ||
        d->stride < sizeof(lab_demo_version)) {
        fprintf(stderr, "error: demo registry: no lesson, title or versions\n");
        return 0;
    }
    const int first = lab_demo_version_at(d, 0)->id;
    for (size_t i = 0; i < d->n_versions; i++) {
        const lab_demo_version *v = lab_demo_version_at(d, i);
        const char *why = entry_problem(v, first + (int)i);
        if (why) {
            fprintf(stderr, "error: demo registry: entry %zu (version %d): %s\n", i, v->id, why);
            return 0;
        }
    }
    return 1;
}

// "versions (default: all):" and one aligned line per version, for --help.
static char *versions_usage(const lab_demo *d)
{
    int id_width = 1, name_width = 1;
    size_t len = 64;
    for (size_t i = 0; i < d->n_versions; i++) {
        const lab_demo_version *v = lab_demo_version_at(d, i);
        const int w = snprintf(NULL, 0, "%d", v->id), n = (int)strlen(v->name);
        id_width = w > id_width ? w : id_width;
        name_width = n > name_width ? n : name_width;
        len += 16 + strlen(v->name) + strlen(v->description);
    }
    len += d->n_versions * (size_t)(id_width + name_width);
    char *text = (char *)malloc(len);
    if (!text)
        return NULL;
    size_t used = (size_t)snprintf(text, len, "versions (default: all):\n");
    for (size_t i = 0; i < d->n_versions; i++) {
        const lab_demo_version *v = lab_demo_version_at(d, i);
        used += (size_t)snprintf(text + used, len - used, "  %*d  %-*s  %s\n", id_width, v->id,
                                 name_width, v->name, v->description);
    }
    return text;
}

static int known(const lab_demo *d, long id)
{
    const long first = lab_demo_version_at(d, 0)->id;
    return id >= first && id < first + (long)d->n_versions;
}

int lab_demo_parse(lab_demo *d, int argc, char **argv)
{
    d->status = LAB_EXIT_USAGE;
    if (!registry_ok(d))
        return 0;
    char *usage = versions_usage(d);
    if (!usage) {
        fprintf(stderr, "error: out of memory\n");
        return 0;
    }
    const int rc = lab_cli_parse(argc, argv, d->title, usage, &d->opts);
    free(usage);
    if (rc != 0) {
        d->status = rc > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
        return 0;
    }
    for (size_t i = 0; i < d->opts.n_positional; i++)
        if (!known(d, d->opts.positional[i])) {
            fprintf(stderr, "error: no version %ld (versions %d..%d; see --list)\n",
                    d->opts.positional[i], lab_demo_version_at(d, 0)->id,
                    lab_demo_version_at(d, d->n_versions - 1)->id);
            return 0;
        }
    d->status = LAB_EXIT_PASS;
    if (!d->opts.list)
        return 1;
    for (size_t i = 0; i < d->n_versions; i++) {
        const lab_demo_version *v = lab_demo_version_at(d, i);
        printf("%d\t%s\t%s\n", v->id, v->name, v->description);
    }
    return 0;
}

int lab_demo_start(lab_demo *d, int argc, char **argv)
{
    if (!lab_demo_parse(d, argc, argv))
        return 0;
    lab_demo_header(d->opts.device, d->title, &d->device);
    return 1;
}

int lab_demo_selected(const lab_demo *d, int id)
{
    if (d->opts.n_positional == 0)
        return 1;
    for (size_t i = 0; i < d->opts.n_positional; i++)
        if (d->opts.positional[i] == id)
            return 1;
    return 0;
}

void lab_demo_run(const lab_demo *d, void *arg)
{
    for (size_t i = 0; i < d->n_versions; i++) {
        const lab_demo_version *v = lab_demo_version_at(d, i);
        if (lab_demo_selected(d, v->id))
            v->fn(arg);
    }
}

void lab_demo_fail(lab_demo *d, int status)
{
    if (d->status == LAB_EXIT_PASS)
        d->status = status;
}

void lab_demo_emit(lab_demo *d, lab_table *t, const char *table)
{
    if (lab_table_rows(t) == 0) {
        lab_table_free(t);
        return;
    }
    char name[256];
    snprintf(name, sizeof name, "%s_%s", d->lesson, table);
    if (lab_table_emit(t, d->opts.csv_dir, name) != 0)
        lab_demo_fail(d, LAB_EXIT_USAGE);
}

void lab_demo_goal(lab_demo *d, const char *what, double value, double goal, const char *unit,
                   int lower_is_better)
{
    int met = lower_is_better ? value <= goal : value >= goal;
    /* Above 1: better than the goal. A goal of 0 (no rung may fall back) met exactly is 1, not
     * 0/0; anything over a zero divisor is infinitely better. */
    const double num = lower_is_better ? goal : value, den = lower_is_better ? value : goal;
    double ratio = den != 0 ? num / den : num == 0 ? 1.0 : HUGE_VAL;
    printf("goal  %s: %.3g %s, goal %s %.3g %s (ratio %.2f): %s\n", what, value, unit,
           lower_is_better ? "<=" : ">=", goal, unit, ratio, met ? "met" : "NOT met");
    if (!d->opts.csv_dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_goals.csv", d->opts.csv_dir, d->lesson);
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s\n", d->lesson, path);
        lab_demo_fail(d, LAB_EXIT_USAGE); /* as lab_demo_emit does for its CSV */
        return;
    }
    if (ftell(f) == 0)
        fputs("goal,value,goal_value,unit,direction,ratio,met\n", f);
    fprintf(f, "\"%s\",%.6g,%.6g,%s,%s,%.4f,%d\n", what, value, goal, unit,
            lower_is_better ? "<=" : ">=", ratio, met);
    fclose(f);
}

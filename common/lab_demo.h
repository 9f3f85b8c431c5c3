/* lab_demo.h — the lab library's demos: a demo's version registry and everything derived from
 * it (common/demo.c). Part of lab.h, which includes it at its end: include lab.h. */
#ifndef LAB_DEMO_H
#define LAB_DEMO_H

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================= demos */
/* A demo's versions, one registry entry each. --help (every version with its description),
 * --list, the range check, the selection, the device header and the table output all come
 * from the registry, so they cannot disagree. A demo that keeps more per version (a kernel for
 * a resources column, a group) makes lab_demo_version the FIRST member of its own entry type
 * and hands its table over with LAB_DEMO_REGISTRY, which passes the entry size along. */
typedef void (*lab_demo_fn)(void *arg); /* the same type as lab_bench_fn: lab_bench can time it */

typedef struct lab_demo_version {
    int id;                  /* the CLI number; the version's function ends in _v<id> */
    const char *name;        /* one word (no blanks): --list, --help, the tables */
    const char *description; /* one line */
    lab_demo_fn fn;          /* one run of the version on the demo's argument */
} lab_demo_version;

/* Expands to the three registry fields of lab_demo: entries, count, entry size. */
#define LAB_DEMO_REGISTRY(table) \
    (const lab_demo_version *)(const void *)(table), sizeof(table) / sizeof *(table), sizeof *(table)

typedef struct lab_demo {
    const char *lesson;               /* "04-tiling": tables go to <lesson>_<table>.csv */
    const char *title;                /* one line: --help's first line, the device header's */
    const lab_demo_version *versions; /* ids contiguous and increasing */
    size_t n_versions;
    size_t stride;                    /* bytes from one entry to the next */
    lab_options opts;                 /* filled by lab_demo_parse */
    lab_device_info device;           /* filled by lab_demo_start */
    int status;                       /* the exit status so far (enum lab_exit) */
} lab_demo;

/* The command line of a demo: `what` is the title; positional numbers choose versions (none:
 * all). Returns 1 to go on, or 0 when main should return d->status at once: after --help or
 * --list (0), or after one error line on stderr (LAB_EXIT_USAGE): an unknown version, a bad
 * option, a registry that breaks the rules above. */
int lab_demo_parse(lab_demo *d, int argc, char **argv);
/* lab_demo_parse, then lab_demo_header (SKIP and exit 77 without a usable device). */
int lab_demo_start(lab_demo *d, int argc, char **argv);
/* Entry i of the registry (i < n_versions), whatever the demo's entry type. */
const lab_demo_version *lab_demo_version_at(const lab_demo *d, size_t i);
/* 1 when version `id` was asked for (or no version was named). */
int lab_demo_selected(const lab_demo *d, int id);
/* Calls fn(arg) of every selected version, in registry order. */
void lab_demo_run(const lab_demo *d, void *arg);
/* A finished table: printed and written as <lesson>_<table>.csv with --csv, then freed; a
 * table without rows is only freed. A CSV that cannot be written makes the status nonzero. */
void lab_demo_emit(lab_demo *d, lab_table *t, const char *table);
/* Records a nonzero exit status; the first one recorded is the one main returns. */
void lab_demo_fail(lab_demo *d, int status);
/* A demo's stated goal, measured in this run: one line on stdout,
 *   goal  <what>: <value> <unit>, goal >= <goal> <unit> (ratio 1.04): met
 * (`<=` when lower_is_better), and a row of <lesson>_goals.csv with --csv. A goal that is not
 * met is reported, never an error: the demo's exit status does not change. */
void lab_demo_goal(lab_demo *d, const char *what, double value, double goal, const char *unit,
                   int lower_is_better);

#ifdef __cplusplus
}
#endif
#endif /* LAB_DEMO_H */

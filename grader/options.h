/* options.h — the grader's command line (options.c): usage, its options read into the grading's
 * options, the course root and a copy's scratch directory. For main.c. */
#ifndef GRADER_OPTIONS_H
#define GRADER_OPTIONS_H

#include <stdio.h>

#include "grade.h"
#include "remote.h"
#include "report.h"

/* Tasks graded at once by default: while one holds the GPU for its timed run, the others
 * build, verify and sanitize. On the H200 four graded the course in 38-41 s where one at a
 * time took 53 s, in one call (grader/README.md); eight took 34 s, with twice the processes
 * beside every timed run. */
#define JOBS_DEFAULT 4

struct cli {
    int batch, outcomes, list;
    enum report_format format;
    const char *output;
    const char *root;
    int no_state;
    int verbose;
    unsigned jobs;      /* tasks graded at once; 0: JOBS_DEFAULT */
    const char *tasks[256];
    size_t n_tasks;
    char *exercises, *exbuild; /* absolute, malloc'd */
    char *exercises_given;     /* --exercises as given, absolute, links kept (owntree.h) */
    struct remote_flags slurm; /* --slurm and its options (remote.h) */
};

/* The usage text, to out. */
void options_usage(FILE *out);
/* "grader: " fmt with arg, and the pointer to --help, on stderr; returns GRADER_EXIT_USAGE. */
int options_usage_error(const char *fmt, const char *arg);
/* The binary lives in <root>/build/grader/: its ../.. is the course when it has lessons/,
 * else the current directory. Malloc'd. */
char *options_default_root(void);
/* The command line into cl and o. Returns -1 to go on, else an exit status. */
int options_parse(int argc, char **argv, struct cli *cl, struct grader_opts *o);
/* --exercises resolved: a directory, and a fresh scratch build directory for its objects
 * unless --exbuild names one. Returns -1 to go on, else an exit status. */
int options_resolve_copy(struct cli *cl, const char *root, struct grader_opts *o);

#endif /* GRADER_OPTIONS_H */

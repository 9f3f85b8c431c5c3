/* ncu_read.h — one side of a profile (the student's run or the reference's) from Nsight
 * Compute's raw page (engine/grade/ncu_csv.h reads the table; this names its columns): per kernel
 * and in total, the figures of digest_figures.h, and the stall reasons.
 *
 * The collection (collect.h) asks for these columns; each figure is read from the first of its
 * candidate metrics that the table has (sections and versions name some differently), and a
 * figure with none is not measured (NaN). The harness's kernels (lab::, objcheck_harness_name)
 * are left out, as the speed's cross-check leaves them out.
 */
#ifndef GRADER_PROFILE_NCU_READ_H
#define GRADER_PROFILE_NCU_READ_H

#include <stddef.h>

#include "digest_figures.h"

#define PROFILE_STALLS 3

struct profile_kernel {
    char *name;             /* demangled, as ncu gives it */
    char grid[48], block[48];
    double fig[PROFILE_FIGURE_COUNT];
};

struct profile_side {
    struct profile_kernel *k; /* launches in order */
    size_t n;
    size_t replayed; /* the launches whose counters ncu read; each other launch has those of
                      * the first of its kernel and shape (profile_side_read_timed) */
    double fig[PROFILE_FIGURE_COUNT]; /* the side's total */
    /* the top stall reasons (cycles a warp waits per instruction issued), largest first;
     * name "" when fewer */
    char stall[PROFILE_STALLS][48];
    double stall_v[PROFILE_STALLS];
};

/* Reads a side from ncu's output. 0, or -1 with why in err (no table, no duration column,
 * no kernel of the exercise's). */
int profile_side_read(const char *text, struct profile_side *s, char *err, size_t errlen);
/* The same where ncu replayed one launch of each kernel and shape (text: its counters) and
 * timed every launch in a pass of its own (times: a table of launches and their
 * gpu__time_duration.sum): every launch is a kernel of the side, with its own time and the
 * counters of the replayed launch of its kernel and shape, so that sums over launches count
 * each launch once. times NULL: profile_side_read. */
int profile_side_read_timed(const char *text, const char *times, struct profile_side *s,
                            char *err, size_t errlen);
void profile_side_free(struct profile_side *s);
/* Whether list (ncu's --metrics value: names and "regex:" patterns, comma-separated) asks for
 * every figure this reads: for each, all the metrics of one of its candidates, and the time,
 * the launch shape and the stall reasons. 1, or 0 with the first figure's missing metric in
 * missing. */
int profile_metrics_cover(const char *list, char *missing, size_t len);
/* "memory", "compute" or "latency": what bounds the side, from its throughputs. */
const char *profile_side_bound(const struct profile_side *s);

#endif /* GRADER_PROFILE_NCU_READ_H */

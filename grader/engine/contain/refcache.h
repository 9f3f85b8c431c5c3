/* refcache.h — the reference's time measured once and shared by the gradings of a class.
 *
 * Timing the reference solution for every student repeats the same measurement: in a class,
 * one GPU's gradings share it through a directory (one per GPU). Each key (a task's speed case)
 * is a small log file, read and appended under flock, so separate grading processes share it:
 *   M <unix time> <median ms> <min ms> <max ms> <floor ms> <turn s> <witness s> <calls>
 *                                                          a measurement
 *   U                                                      a grading that used the last one
 * A measurement serves later gradings until it is older than max_age_s or has served
 * max_uses of them (max_age_s <= 0: never); then the grading that finds it stale measures
 * again. So fresh reference runs are interleaved with the students' runs (a clock, heat or a
 * neighbour that changes the GPU's speed shows up within a few gradings), and every ratio is
 * taken against the newest measurement. Nothing here runs anything: the caller measures. */
#ifndef GRADER_REFCACHE_H
#define GRADER_REFCACHE_H

#include <stddef.h>

struct ref_time {
    double ms, min_ms, max_ms, floor_ms; /* < 0 when the report did not give it */
    double turn_s; /* the reference's run past its gate (s): what bounds a student's turn;
                      < 0 when unknown */
    double witness_s; /* the grader's clock over its timed window (witness.h); < 0: none */
    int calls;        /* the calls in that window (warm-up and timed); 0: none */
    double at;                           /* when it was measured (unix time, s) */
};

/* The newest measurement of key when it may still serve (younger than max_age_s, fewer than
 * max_uses gradings served): returns 1, fills *t and counts this use. 0: none that may serve
 * (measure and refcache_put); -1: the cache cannot be read or written (errno set). */
int refcache_take(const char *dir, const char *key, double max_age_s, int max_uses,
                  struct ref_time *t);
/* The newest measurement of key, whatever its age and uses, counting no use: 1 and *t filled,
 * 0 when there is none, -1 when the cache cannot be read (errno set). For bounds, not ratios. */
int refcache_peek(const char *dir, const char *key, struct ref_time *t);
/* Seconds since t was measured (0 when its clock is ahead). */
double refcache_age_s(const struct ref_time *t);
/* Records a fresh measurement, stamped now (t->at is not read); it serves the grading that
 * made it. 0, or -1 (errno set). */
int refcache_put(const char *dir, const char *key, const struct ref_time *t);
#endif /* GRADER_REFCACHE_H */

/* digest_figures.h — the figures of a profile digest, one table: the name rules use
 * (rules.h), the words a report shows, the unit, and how a side's kernels add up.
 *   SUM       summed over the kernels
 *   MAX       the largest kernel's (launch resources)
 *   TIME      the kernels' time-weighted mean (rates and shares)
 *   RATIO     a quotient of sums (ncu_read.c computes it from its parts)
 *   HARNESS   not ncu's: what the harness measured of the whole call (the digest fills it in)
 */
#ifndef GRADER_PROFILE_DIGEST_FIGURES_H
#define GRADER_PROFILE_DIGEST_FIGURES_H

#include <stddef.h>

enum profile_how { PH_SUM, PH_MAX, PH_TIME, PH_RATIO, PH_HARNESS };

#define PROFILE_FIGURES(F)                                                                    \
    F(time_ms, "kernel time", "ms", SUM)                                                      \
    F(kernels, "kernel launches", "", SUM)                                                    \
    F(registers, "registers per thread", "", MAX)                                             \
    F(shared_bytes, "shared memory per block", "B", MAX)                                      \
    F(local_bytes, "local-memory traffic (spills)", "B", SUM)                                 \
    F(occupancy_theoretical, "theoretical occupancy", "%", TIME)                              \
    F(occupancy_achieved, "achieved occupancy", "%", TIME)                                    \
    F(dram_gbps, "DRAM throughput", "GB/s", RATIO)                                            \
    F(dram_pct, "DRAM throughput, share of peak", "%", TIME)                                  \
    F(dram_ceiling_pct, "DRAM throughput, share of the copy ceiling", "%", RATIO)             \
    F(sm_pct, "compute throughput, share of peak", "%", TIME)                                 \
    F(gflops, "floating-point rate", "GFLOP/s", RATIO)                                        \
    F(intensity, "arithmetic intensity", "FLOP/B", RATIO)                                     \
    F(sectors_per_load, "global sectors per load request", "", RATIO)                         \
    F(sectors_per_store, "global sectors per store request", "", RATIO)                       \
    F(l1_hit, "L1 hit rate of global loads", "%", TIME)                                       \
    F(l2_hit, "L2 hit rate of reads", "%", TIME)                                              \
    F(bank_conflicts, "shared bank conflicts per request", "", RATIO)                         \
    F(warp_efficiency, "threads active per instruction (of 32)", "", RATIO)                   \
    F(atomics, "global atomic requests", "", SUM)                                             \
    F(atomics_per_us, "global atomic requests per microsecond", "", RATIO)                    \
    F(call_ms, "time per call, copies and faults included", "ms", HARNESS)

enum profile_figure {
#define F(name, words, unit, how) PF_##name,
    PROFILE_FIGURES(F)
#undef F
    PROFILE_FIGURE_COUNT
};

/* "sectors_per_load", "global sectors per load request", "" */
const char *profile_figure_key(enum profile_figure f);
const char *profile_figure_words(enum profile_figure f);
const char *profile_figure_unit(enum profile_figure f);
/* The figure of that key, or -1. */
int profile_figure_find(const char *key, size_t len);

/* A DRAM copy reaches about this share of the DRAM's peak on the course's GPUs (lesson 01's
 * notes: the reduction read at 93-96 % of peak and 108 % of the copy ceiling), so a share of
 * the copy ceiling is the share of peak divided by it. */
#define PROFILE_COPY_PCT_OF_PEAK 88.0

#endif /* GRADER_PROFILE_DIGEST_FIGURES_H */

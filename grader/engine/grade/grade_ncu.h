/* grade_ncu.h — the speed's cross-check from outside the student's process.
 *
 * The time a grading judges is the one the task harness reports: CUDA events around each call,
 * taken in the process the student's code runs in. The cross-check runs the exercise's speed
 * case once more under Nsight Compute (`ncu`), which reads each kernel's duration from the
 * GPU's own counters, and compares the kernels' time per call with the harness's time. An
 * honest call takes at least as long as its kernels (the harness's window holds them all, and
 * the launch gaps between them), so a reported time well below the kernels' is a finding:
 * "implausible time".
 *
 * The run (grade_ncu.c, step_ncu of grade_steps.h), in the sandbox like the graded run, holding
 * the GPU as a timed run does:
 *   ncu --csv --page raw --print-units base --metrics gpu__time_duration.sum
 *       --clock-control none --cache-control none --launch-skip 1 --log-file <scratch>/ncu.csv
 *       <exercise> --seed S --dump <scratch>/ncu.dump --report <scratch>/ncu.tap
 *       --case SPEED --warmup 0 --reps NCU_REPS
 *   --clock-control none, --cache-control none: the kernels run at the clocks and with the
 *     caches of the graded run (ncu would lock the base clock and flush every cache before
 *     each kernel, slowing the second kernel of a call that reads what the first left in L2);
 *     the harness flushes L2 before every call itself.
 *   --launch-skip 1: the harness's device probe, the first kernel of every task binary
 *     (lab_device_open), launched before any code of the student's can run. Were it gone,
 *     the first skipped kernel would be the student's: less time, never a false finding.
 *   --warmup 0 --reps NCU_REPS: every kernel profiled belongs to one of NCU_REPS calls, so
 *     the sum over NCU_REPS is the kernels' time per call (the harness writes no marker of
 *     its timed window, and the warm-up count is the task's own).
 *   --log-file: the table goes to a file, away from what the program prints.
 * The student's code cannot tell this run from the sanitizers' runs by its arguments: the
 * same options, a case of its own. The harness's own kernels, which draw each call's inputs
 * on the GPU before its timed window, are named lab::... and left out of the sum; which names
 * those are is objcheck_harness_name's answer, the same test that keeps every such name out of
 * an exercise, so no student kernel can hide there.
 *
 * What real ncu writes there (`--csv --page raw`, read by ncu_csv.h: a header row, a units
 * row, one row per kernel launch; numbers may carry thousands separators):
 *   ==PROF== Connected to process 4242 (/path/to/exercise)
 *   "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",
 *     "Grid Size","Device","CC","gpu__time_duration.sum"
 *   "","","","","","","","","","","","nsecond"
 *   "0","4242","exercise","127.0.0.1","matmul_kernel(const float *, float *, int)","1","7",
 *     "(16, 16, 1)","(64, 64, 1)","0","9.0","1,234,567"
 * The details page (one row per kernel and metric, "Metric Name", "Metric Unit" and
 * "Metric Value" columns) is read too.
 * When the counters are the administrator's only, it writes a line with ERR_NVGPUCTRPERM
 * and profiles nothing.
 */
#ifndef GRADER_GRADE_NCU_H
#define GRADER_GRADE_NCU_H

#include <stddef.h>

#define NCU_METRIC "gpu__time_duration.sum"
/* Calls profiled; at least the harness's LAB_DUMP_REPS, which the speed case must hold. */
#define NCU_REPS 3
/* The harness's time may fall this far below the kernels' before it is a finding. Honest
 * runs stay above 1 (the window holds every kernel); clocks that differ between the two runs
 * and kernels that overlap on streams of their own take it below, by tens of percent at
 * most. The runs this exists for report ten to a thousand times too little. */
#define NCU_AGREE_FACTOR 0.7

/* The kernels of one ncu table: how many rows of NCU_METRIC, and their durations' sum. */
struct ncu_kernels {
    size_t n;
    double total_ms;
};

/* Reads ncu's --csv raw (or details) table from text (other lines, such as ==PROF== ones, are
 * skipped). Returns 0 with k filled, or -1 with why in err: no table, a column missing, a
 * duration that is not a number, a unit that is not a time. */
int ncu_parse_csv(const char *text, struct ncu_kernels *k, char *err, size_t errlen);

/* Why ncu could not measure, from its output: the counters not permitted (ERR_NVGPUCTRPERM),
 * its first ==ERROR== line, or no kernel profiled; NULL when the output says none of these.
 * The result is written into buf. */
const char *ncu_trouble(const char *text, char *buf, size_t len);

/* 1 when the harness's time per call (harness_ms) is plausible against the kernels' time per
 * call under ncu (ncu_ms): harness_ms >= NCU_AGREE_FACTOR * ncu_ms. */
int ncu_agrees(double harness_ms, double ncu_ms);

/* A speed ratio above this is cross-checked always. A copy of the reference lands within a few
 * percent of 1 either side (its timing's noise), so a threshold of 1 would run ncu on about
 * half of the honest copies, a second timed run each, for nothing; a result claimed 10 % or
 * more faster than the reference is always checked. */
#define NCU_FASTER 1.1

/* Whether a grading is cross-checked: always when the exercise was clearly faster than the
 * reference (speed ratio = reference / exercise > NCU_FASTER), else when draw (uniform in
 * [0, 1)) < share. */
int ncu_wanted(double speed_ratio, double share, double draw);

#endif /* GRADER_GRADE_NCU_H */

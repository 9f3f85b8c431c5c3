/* digest.h — "too slow, and here is why": the student's kernels against the reference's under
 * Nsight Compute, in the lesson's words.
 *
 * From the two sides' tables (ncu_read.h) and the lesson's rules (rules.h) it keeps the
 * figures of both sides and ONE finding, the first of:
 *   close       the student's kernels take at most PROFILE_CLOSE times the reference's, and
 *               so does the whole call as the harness timed it (call_ms), or it passes the bar
 *   <rule key>  of the rules that hold for the task, the one with the largest gap
 *   outside     the kernels are close but the call is not: the time goes outside them
 *   ceiling     the student's kernels run at the GPU's ceiling: DRAM at PROFILE_CEILING_PCT
 *               or more of the copy ceiling, or the SMs at that share of their peak
 *   unexplained slower than the reference for no reason the lesson's rules name
 *   unavailable ncu could not read the counters (or was not there, or failed): one line of
 *               why and how to allow it, then what the harness measured itself
 * The digest never changes a grading's verdict.
 */
#ifndef GRADER_PROFILE_DIGEST_H
#define GRADER_PROFILE_DIGEST_H

#include <cjson/cJSON.h>

#include "ncu_read.h"
#include "rules.h"
#include "util.h"

#define PROFILE_CLOSE 1.1
#define PROFILE_CEILING_PCT 85.0

/* What the harness measured itself (the grading's times; NaN when unknown). */
struct profile_harness {
    double time_ms, ref_time_ms, ratio, threshold;
};

struct profile_digest {
    int available;
    char *why;                     /* unavailable: why, and how to allow it */
    struct profile_side side[2];   /* RULE_STUDENT, RULE_REF */
    struct profile_harness harness;
    char *key;                     /* the finding's key (above) */
    char *finding;                 /* its sentence, with the figures */
    char *teach;                   /* the lesson section that teaches it; "" when none */
    char *rules_error;             /* the rules file's error, when it had one; else NULL */
};

/* The digest of the student's and the reference's ncu output (either NULL: not collected),
 * unavailable_why (NULL, or why ncu could not run: it wins), the lesson's rules (NULL: none)
 * for task, the harness's figures. Never NULL. */
struct profile_digest *profile_digest_make(const char *student_text, const char *ref_text,
                                           const char *unavailable_why,
                                           const struct profile_rules *rules, const char *task,
                                           const struct profile_harness *h);
/* The same with each side's table of launch times (NULL: none; profile_side_read_timed), where
 * ncu replayed one launch of each kernel and shape. */
struct profile_digest *profile_digest_make_timed(const char *const text[2],
                                                 const char *const times[2],
                                                 const char *unavailable_why,
                                                 const struct profile_rules *rules,
                                                 const char *task,
                                                 const struct profile_harness *h);
void profile_digest_free(struct profile_digest *d);

/* One line of why ncu gave nothing, with how to allow it, from its output (NULL when the
 * output is a table): counters not permitted, an unsupported GPU, ncu's own error. */
const char *profile_trouble(const char *text, char *buf, size_t len);

/* The digest as text: the finding first, then the figures of both sides (indent: each line's
 * prefix). */
void profile_digest_text(const struct profile_digest *d, const char *indent, struct strbuf *b);
/* The digest as a JSON object: available, why, finding {key, text, teach}, student and
 * reference {figures..., bound, stalls[], launches[]}, harness {time_ms, ref_time_ms, ratio}. */
cJSON *profile_digest_json(const struct profile_digest *d);

#endif /* GRADER_PROFILE_DIGEST_H */

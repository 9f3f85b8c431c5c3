/* tap.h — reading the TAP 13 reports that task binaries write (--report FILE).
 *
 *   ok 1 - 17x31x5          a case line: "ok"/"not ok", number, " - ", the case name
 *     ---                   then one flat YAML block: "key: value" lines
 *     status: pass          strings may be double-quoted with \" and \\ escapes
 *     ...
 * Reports may be cut short (the process died): what was written is read, the rest is missing.
 */
#ifndef GRADER_TAP_H
#define GRADER_TAP_H

#include <stddef.h>
#include <stdint.h>

struct tap_case {
    int number;
    int ok;                     /* the "ok" / "not ok" word */
    char *name;
    char *status;               /* a LAB_STATUS_* word (lab_protocol.h); "" when absent */
    double time_ms;             /* < 0 when absent (every number below, too) */
    double time_min_ms, time_max_ms; /* the fastest and slowest timed repetition */
    double floor_ms;            /* the reference's bound: no correct run on this GPU is faster */
    double throughput;
    char *unit;
    long long checked, bad;
    double max_abs_err, max_rel_err;
    char *first_mismatch;
    char *mismatches;           /* "a; b; c" as written */
    char *note;
};

struct tap_report {
    struct tap_case *cases;
    size_t n_cases;
    long planned;               /* from "1..N"; -1 when absent */
    char *program, *task, *device; /* from "# key: value" comments; "" when absent */
    int has_seed;
    uint64_t seed;
};

/* 0 on success (even for an empty or truncated report); -1 when the file cannot be read. */
int tap_parse_file(const char *path, struct tap_report *r);
void tap_parse_string(const char *text, struct tap_report *r);
void tap_report_free(struct tap_report *r);
const struct tap_case *tap_find(const struct tap_report *r, const char *name);

/* Unquote a YAML scalar: a double-quoted string with \" \\ \n \t escapes, else trimmed as is.
 * Returns a malloc'd string. */
char *tap_unquote(const char *value);

#endif /* GRADER_TAP_H */

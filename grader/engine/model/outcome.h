/* outcome.h — the one table of grading outcomes.
 *
 * Every place that shows an outcome — the model's names, the precedence that decides between
 * two findings, the reports' keys, the JUnit element, the TUI's colour, the help screen and the
 * README's table — reads this table. Add an outcome here and nowhere else.
 *
 * Columns: enum suffix, machine key (JSON, CSV, state), words, JUnit kind, colour role (a
 * TUI_C_ role of tui_colors.h), glyph (ASCII, UTF-8), meaning (one line, for the help screen and
 * the README). The rows are in precedence order: when a grading records several facts, the outcome
 * is the first row whose fact was recorded (outcome_decide, decide.h). `grader --outcomes` prints
 * the table as grader/README.md has it (tests/grader/test_decide.sh keeps them equal).
 */
#ifndef GRADER_OUTCOME_H
#define GRADER_OUTCOME_H

#define OUTCOME_TABLE(X) \
    X(NOT_RUN,      "not_run",      "not run",           JUNIT_FAILURE, NOT_RUN, ".", "\xc2\xb7", \
      "never graded, edited since, cancelled, or the grader's own error (the reason says which)") \
    X(BUILD_FAILED, "build_failed", "build failed",      JUNIT_ERROR,   FAILURE, "!", "!", \
      "the build failed, or the exercise file is missing; the compiler's first error is the reason") \
    X(REJECTED,     "rejected",     "rejected",          JUNIT_ERROR,   FAILURE, "!", "!", \
      "the object defines or calls what its contract does not allow; the symbol and line are the reason") \
    X(TIMED_OUT,    "timed_out",    "timed out",         JUNIT_ERROR,   FAILURE, "!", "!", \
      "the wall-clock limit; every process of the run was killed") \
    X(CRASHED,      "crashed",      "crashed",           JUNIT_ERROR,   FAILURE, "!", "!", \
      "a signal, an output flood, too many processes, or an exit status outside the protocol") \
    X(CUDA_ERROR,   "cuda_error",   "CUDA error",        JUNIT_ERROR,   FAILURE, "!", "!", \
      "a CUDA call failed; its file:line is the reason") \
    X(SKIPPED,      "skipped",      "skipped",           JUNIT_SKIPPED, SKIP,    "-", "-", \
      "no usable GPU here, and the grader's own probe agrees") \
    X(WRONG,        "wrong",        "wrong",             JUNIT_FAILURE, WRONG,   "x", "\xe2\x9c\x97", \
      "some case failed verification") \
    X(SANITIZER,    "sanitizer",    "sanitizer finding", JUNIT_FAILURE, WARN,    "~", "~", \
      "correct, but a compute-sanitizer tool reported an error") \
    X(IMPLAUSIBLE,  "implausible",  "implausible time",  JUNIT_FAILURE, WARN,    "~", "~", \
      "correct, but faster than this GPU can do the work (the reference's floor_ms)") \
    X(TOO_SLOW,     "too_slow",     "too slow",          JUNIT_FAILURE, WARN,    "~", "~", \
      "correct and clean, but slower than the threshold against the reference") \
    X(PASSED,       "passed",       "passed",            JUNIT_PASS,    PASS,    "+", "\xe2\x9c\x93", \
      "correct, clean and fast enough")

/* How JUnit XML shows an outcome. */
enum junit_kind { JUNIT_PASS, JUNIT_FAILURE, JUNIT_ERROR, JUNIT_SKIPPED };

#endif /* GRADER_OUTCOME_H */

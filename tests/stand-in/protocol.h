/* protocol.h — a CPU stand-in for the lab's task harness, speaking the grader's protocol
 * (lab_protocol.h: --list, --seed, --case, --dump, --report, --verify; its exit statuses) so
 * that the grader's and the TUI's tests need no GPU. The "student" implements task_compute;
 * everything else is here.
 *
 * One source for every test course: a course's build sees only its own tree (the grader's
 * sandbox), so tests copy this file, protocol.c and common/lab_protocol.h into the copied
 * course's common/ (stand_in_install in tests/lib.sh). */
#ifndef STAND_IN_PROTOCOL_H
#define STAND_IN_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

/* Element i of the output for the given seed (the exercise or the solution). */
double task_compute(long i, uint64_t seed);
/* What the element must be (a weak default in protocol.c; a course may define its own). */
double protocol_expected(long i, uint64_t seed);
/* Prints "probe CUDA_VISIBLE_DEVICES=VALUE" to stderr: the harness reads the environment for a
 * student's file, which may not (the class tests' probe student). */
void protocol_probe_env(void);
/* The --report path of this run ("" when none): a forging exercise overwrites it. */
extern const char *protocol_report_path;

/* One case: its name, its element count (the dims of --list), its --list flags
 * (LAB_LIST_* words), and the time its report gives (< 0: the measured time). */
struct protocol_case {
    const char *name;
    long n;
    const char *flags;
    double time_ms;
};
/* The course's cases (a weak default in protocol.c); *n gets their number. */
const struct protocol_case *protocol_cases(size_t *n);

/* Optional, for the grader's tests (weak defaults in protocol.c): the floor_ms a timed case's
 * report gives (< 0: none), and whether the report leaves the time out. */
double task_floor_ms(void);
int task_hides_time(void);

int protocol_main(const char *task, int argc, char **argv);

#endif

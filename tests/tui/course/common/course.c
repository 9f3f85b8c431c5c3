/* course.c — the TUI course's side of the stand-in harness (protocol.c, which tests copy in
 * from tests/stand-in/): every task is one function of the student's, int f(int), whose right
 * answer is 2 * i, so a test can make a task pass, fail or not build by editing one line. The
 * times are fixed, so the speed ratio against the reference is exactly 1. */
#include <libgen.h>

#include "lab_protocol.h"
#include "protocol.h"

int f(int i);

double task_compute(long i, uint64_t seed)
{
    (void)seed;
    return f((int)i);
}

double protocol_expected(long i, uint64_t seed)
{
    (void)seed;
    return 2.0 * (double)i;
}

const struct protocol_case *protocol_cases(size_t *n)
{
    static const struct protocol_case cases[] = {
        {"1", 1, LAB_LIST_NONE, 0.01},
        {"17", 17, LAB_LIST_SMALL, 0.02},
        {"big", 100003, LAB_LIST_SPEED, 1.0},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}

/* The task is the binary's name: build/exercises/01-first/double_it is task double_it. */
int main(int argc, char **argv)
{
    return protocol_main(basename(argv[0]), argc, argv);
}

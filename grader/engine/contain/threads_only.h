/* threads_only.h — a seccomp filter under which a program may start threads and never a
 * process (threads_only.c).
 *
 * A task's program is one process: the CUDA runtime starts threads, nothing in a task starts
 * a program or a copy of itself. The runner's other bound on processes (RLIMIT_NPROC, relative
 * to the user's tasks) does not hold for root, whom the kernel exempts, and its count of a
 * run's processes through /proc looks every 50 ms: a fork loop run by a grader that is root
 * (a container's grader often is) filled the machine's process table within one look, and
 * every other program there failed to fork. Under this filter the first fork ends the
 * program with SIGSYS instead:
 *   fork, vfork                          the program is killed (SIGSYS)
 *   clone without CLONE_THREAD           the program is killed (posix_spawn, system, fork)
 *   clone3                               fails with ENOSYS: its flags are in memory, where a
 *                                        filter cannot read them, and the C library then
 *                                        starts its threads with clone
 * Everything else is allowed. The filter is built before fork (libseccomp) as a BPF program,
 * which the child installs itself, or which bwrap installs just before it execs the program
 * (--seccomp FD), so that bwrap's own setup may still fork. */
#ifndef GRADER_THREADS_ONLY_H
#define GRADER_THREADS_ONLY_H

#include <stddef.h>

/* The descriptor on which the child hands the program to bwrap (--seccomp). */
#define THREADS_ONLY_FD 4

struct threads_only {
    int fd;               /* a memfd holding the BPF program, at offset 0; -1: none */
    void *prog;           /* struct sock_fprog, whose filter follows it in the same block */
};

/* Builds the filter into *t: 0, or -1 with why in err (t->fd is then -1). */
int threads_only_build(struct threads_only *t, char *err, size_t errlen);
/* In the child, between fork and exec (async-signal-safe): no new privileges, then the filter
 * on this process. 0, or -1 with errno set. */
int threads_only_install(const struct threads_only *t);
void threads_only_free(struct threads_only *t);

#endif /* GRADER_THREADS_ONLY_H */

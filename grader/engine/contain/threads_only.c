/* threads_only.c — the filter of threads_only.h, built with libseccomp. */
#include "threads_only.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The lowest descriptor the program's copy may take in the grader: above those the child
 * moves into place (the gate's 3, THREADS_ONLY_FD), so no dup2 there overwrites it. */
#define FD_FLOOR 10

static int rules(scmp_filter_ctx ctx)
{
    int rc = 0;
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(fork), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(vfork), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    return rc;
}

int threads_only_build(struct threads_only *t, char *err, size_t errlen)
{
    t->fd = -1;
    t->prog = NULL;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(err, errlen, "seccomp_init failed");
        return -1;
    }
    int fd = -1, rc = rules(ctx);
    if (rc != 0)
        snprintf(err, errlen, "seccomp rules: %s", strerror(-rc));
    if (rc == 0) {
        int mem = memfd_create("threads-only", MFD_CLOEXEC);
        fd = mem >= 0 ? fcntl(mem, F_DUPFD_CLOEXEC, FD_FLOOR) : -1;
        if (mem >= 0)
            close(mem);
        if (fd < 0)
            snprintf(err, errlen, "memfd: %s", strerror(errno));
        else if ((rc = seccomp_export_bpf(ctx, fd)) != 0)
            snprintf(err, errlen, "seccomp_export_bpf: %s", strerror(-rc));
    }
    seccomp_release(ctx);
    struct stat st;
    if (fd < 0 || rc != 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
        st.st_size % (off_t)sizeof(struct sock_filter) != 0) {
        if (fd >= 0 && rc == 0)
            snprintf(err, errlen, "seccomp_export_bpf wrote no whole program");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct sock_fprog *prog = malloc(sizeof *prog + (size_t)st.st_size);
    if (!prog || pread(fd, prog + 1, (size_t)st.st_size, 0) != st.st_size) {
        snprintf(err, errlen, "reading the filter back: %s", prog ? strerror(errno) : "no memory");
        free(prog);
        close(fd);
        return -1;
    }
    /* bwrap reads the program from where the descriptor stands: its start */
    if (lseek(fd, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "rewinding the filter: %s", strerror(errno));
        free(prog);
        close(fd);
        return -1;
    }
    prog->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
    prog->filter = (struct sock_filter *)(prog + 1);
    t->fd = fd;
    t->prog = prog;
    return 0;
}

int threads_only_install(const struct threads_only *t)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, t->prog, 0, 0);
}

void threads_only_free(struct threads_only *t)
{
    if (t->fd >= 0)
        close(t->fd);
    free(t->prog);
    t->fd = -1;
    t->prog = NULL;
}

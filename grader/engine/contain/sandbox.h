/* sandbox.h — the view student code gets (sandbox.c), through bubblewrap.
 *
 * A sandboxed child runs as
 *   bwrap --unshare-all --die-with-parent --new-session --cap-drop ALL
 *         <the system: /usr, /bin, /sbin, /lib*, a few /etc files, /sys, all read-only>
 *         --proc /proc --dev /dev --dev-bind <every /dev/nvidia*> --tmpfs /tmp --tmpfs /dev/shm
 *         <the CUDA toolkit and the paths added with sandbox_add_ro, read-only>
 *         --bind SCRATCH SCRATCH --remount-ro / --chdir CWD -- ARGV...
 * so that it sees nothing of the machine but the toolchain, what the caller lists, and one
 * writable scratch directory; it has no network, its own PID namespace (nothing it starts
 * outlives it: the namespace dies with its first process, and that with the grader), and an
 * environment of only PATH, HOME (the scratch), LANG=C, TMPDIR, CUDA_HOME and
 * CUDA_VISIBLE_DEVICES when the grader has them, and what the caller adds.
 * Every path is bound at its own place, so paths mean the same inside and out.
 */
#ifndef GRADER_SANDBOX_H
#define GRADER_SANDBOX_H

#include <stddef.h>

#include "util.h"

/* Size of the sandbox's /tmp and /dev/shm: memory, so bounded. */
#define SANDBOX_TMP_BYTES ((unsigned long long)1088 << 20)

struct sandbox {
    char *scratch;        /* the one writable directory, absolute */
    struct strlist ro;    /* real paths, bound read-only at the same place; missing ones
                           * are skipped */
    struct strlist links; /* pairs: a real path, and the link to it the caller named */
};

/* NULL when sandboxes can be made here (bwrap runs and makes its namespaces), else one line
 * saying why not and what follows ("student code runs unsandboxed: ..."). Probed once. */
const char *sandbox_unavailable(void);
/* The bwrap binary found by the probe ("" when none). */
const char *sandbox_bwrap(void);

void sandbox_init(struct sandbox *sb, const char *scratch);
/* The same view as like's, with another scratch: processes of one grading that run at once,
 * each unable to reach the other's files. */
void sandbox_init_like(struct sandbox *sb, const struct sandbox *like, const char *scratch);
void sandbox_add_ro(struct sandbox *sb, const char *path);
void sandbox_free(struct sandbox *sb);

/* The command line that runs argv in the sandbox with cwd as its working directory (NULL:
 * the scratch), with the seccomp program bwrap reads from descriptor seccomp_fd installed
 * just before argv runs (-1: none), and its environment (extra: more "KEY=VALUE", NULL-terminated, may be NULL).
 * Both are malloc'd NULL-terminated arrays (free them) whose strings *owner holds (free it
 * with strlist_free). Built before fork: the child only execs. */
char **sandbox_argv(const struct sandbox *sb, char *const *argv, const char *cwd,
                    int seccomp_fd, struct strlist *owner);
char **sandbox_env(const struct sandbox *sb, const char *const *extra, struct strlist *owner);

/* Bytes the files under dir take on disk (blocks, so sparse files count what they use). */
unsigned long long sandbox_disk_usage(const char *dir);

#endif /* GRADER_SANDBOX_H */

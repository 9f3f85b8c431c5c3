/* proctree.h — the processes of a run, through /proc, for the runner (runner.c): a child's
 * process group and, in the sandbox, every process under it and in its PID namespace. Linux
 * only; works for root too (no rlimit is needed to count or kill). */
#ifndef GRADER_PROCTREE_H
#define GRADER_PROCTREE_H

#include <stddef.h>
#include <sys/types.h>

/* Processes in root's group, and with tree every process under root too. */
int proc_count(pid_t root, int tree);
/* Kills the child's group and every process under it while the child still holds them (once
 * it is reaped its descendants are adopted elsewhere); returns them in *pids (malloc'd) and
 * the sandbox's PID namespace in *ns (0: none), for proc_kill_wait. */
size_t proc_kill_tree(pid_t root, int tree, pid_t **pids, unsigned long *ns);
/* Waits until the killed run has no process left (with a sandbox, until its PID namespace is
 * empty, killing what is still there, at most 5 s; without one, at most 2 s). */
void proc_kill_wait(pid_t *pids, size_t n, unsigned long ns);
/* Tasks (threads included, as RLIMIT_NPROC counts them) of the real user uid. */
long proc_user_tasks(uid_t uid);

#endif /* GRADER_PROCTREE_H */

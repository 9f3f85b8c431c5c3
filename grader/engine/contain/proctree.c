/* proctree.c — a run's processes through /proc (proctree.h): counted, killed, waited for. */
#include "proctree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Reads /proc/<pid>/<file> into buf; returns bytes or -1. */
static ssize_t read_proc(const char *pid, const char *file, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n >= 0)
        buf[n] = 0;
    return n;
}

static int is_pid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* 1 while /proc/<pid> is a process that has not exited (neither zombie nor dead). */
static int proc_alive(const char *pid)
{
    char buf[512];
    ssize_t got = read_proc(pid, "stat", buf, sizeof buf);
    const char *p = got > 0 ? strrchr(buf, ')') : NULL; /* comm may hold ')': the last one */
    return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

struct proc_entry {
    pid_t pid, ppid, pgrp;
    int in;
};

/* The live processes of root's group and, with tree, every descendant of root (a sandboxed
 * child keeps all it starts under itself: its PID namespace's first process adopts the
 * orphans), malloc'd into *out (may be NULL: counted only). Zombies are not counted. */
static size_t proc_tree(pid_t root, int tree, pid_t **out)
{
    if (out)
        *out = NULL;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct proc_entry *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    char buf[512];
    while ((e = readdir(d))) {
        if (!is_pid_name(e->d_name) || read_proc(e->d_name, "stat", buf, sizeof buf) <= 0)
            continue;
        /* "pid (comm) state ppid pgrp ...": comm may hold spaces and ')', so from the last ')' */
        char *p = strrchr(buf, ')');
        char state;
        int ppid, pgrp;
        if (!p || sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 || state == 'Z')
            continue;
        if (n == cap)
            v = xrealloc(v, (cap = cap ? 2 * cap : 256) * sizeof *v);
        pid_t pid = (pid_t)atoi(e->d_name);
        v[n++] = (struct proc_entry){pid, ppid, pgrp, pid == root || pgrp == root};
    }
    closedir(d);
    for (int changed = tree; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n && !v[i].in; k++)
                if (v[k].in && v[k].pid == v[i].ppid)
                    changed = v[i].in = 1;
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += v[i].in;
    if (out && count) {
        *out = xrealloc(NULL, count * sizeof **out);
        for (size_t i = 0, k = 0; i < n; i++)
            if (v[i].in)
                (*out)[k++] = v[i].pid;
    }
    free(v);
    return count;
}

int proc_count(pid_t root, int tree) { return (int)proc_tree(root, tree, NULL); }

/* The PID namespace of a process (the inode its ns/pid link names), 0 when unreadable. */
static unsigned long pid_ns_of(const char *pid)
{
    char path[64], link[64];
    snprintf(path, sizeof path, "/proc/%s/ns/pid", pid);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return 0;
    link[n] = 0;
    const char *open = strchr(link, '[');
    return open ? strtoul(open + 1, NULL, 10) : 0;
}

/* The sandbox's own PID namespace: that of the first killed process whose namespace is not
 * the grader's (bwrap itself lives in ours), 0 when none. */
static unsigned long sandbox_ns(const pid_t *pids, size_t n)
{
    unsigned long ours = pid_ns_of("self");
    for (size_t i = 0; i < n; i++) {
        char name[24];
        snprintf(name, sizeof name, "%d", (int)pids[i]);
        unsigned long ns = pid_ns_of(name);
        if (ns && ns != ours)
            return ns;
    }
    return 0;
}

/* Kills the child's group and every process under it while the child still holds them (once
 * it is reaped its descendants are adopted elsewhere), and returns them, for proc_kill_wait. */
size_t proc_kill_tree(pid_t root, int tree, pid_t **pids, unsigned long *ns)
{
    size_t n = proc_tree(root, tree, pids);
    *ns = sandbox_ns(*pids, n); /* read before the kill, while they are there to be read */
    for (size_t i = 0; i < n; i++)
        kill((*pids)[i], SIGKILL);
    kill(-root, SIGKILL);
    return n;
}

/* Kills what is left in PID namespace ns; returns how many were still alive. */
static size_t kill_ns(unsigned long ns)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    size_t alive = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (is_pid_name(e->d_name) && pid_ns_of(e->d_name) == ns && proc_alive(e->d_name)) {
            kill((pid_t)atol(e->d_name), SIGKILL);
            alive++;
        }
    }
    closedir(d);
    return alive;
}

/* Waits until the stopped run has no process left: with a sandbox, until its PID namespace
 * is empty (a fork loop makes new processes between the scan and the kill, and the kernel
 * kills those only after the namespace's first process, asynchronously), killing what is
 * still there, at most 5 s; without one, until the killed processes are gone, at most 2 s. */
void proc_kill_wait(pid_t *pids, size_t n, unsigned long ns)
{
    double end = now_s() + (ns ? 5.0 : 2.0);
    while (ns && kill_ns(ns) > 0 && now_s() < end)
        usleep(10000);
    for (size_t i = 0; i < n; i++) {
        char name[24];
        snprintf(name, sizeof name, "%d", (int)pids[i]);
        while (proc_alive(name) && now_s() <= end)
            usleep(10000);
    }
}

/* Tasks (threads included, as RLIMIT_NPROC counts them) of the real user uid. */
long proc_user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    long n = 0;
    struct dirent *e;
    char buf[4096];
    while ((e = readdir(d))) {
        if (!is_pid_name(e->d_name) || read_proc(e->d_name, "status", buf, sizeof buf) <= 0)
            continue;
        const char *u = strstr(buf, "\nUid:");
        const char *t = strstr(buf, "\nThreads:");
        unsigned long ruid;
        long threads;
        if (u && t && sscanf(u + 5, "%lu", &ruid) == 1 && ruid == uid &&
            sscanf(t + 9, "%ld", &threads) == 1)
            n += threads;
    }
    closedir(d);
    return n;
}

/* runner.c — bounded child processes: see runner.h for the limits and why. */
#include "runner.h"

#include "lab_protocol.h"
#include "proctree.h"
#include "threads_only.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CAP ((size_t)1 << 20)
#define POLL_MS 20
#define PROC_SCAN_MS 50
#define DISK_SCAN_MS 250
/* bwrap and its namespace's first process, besides the program */
#define SANDBOX_PROCS 2

/* ======================================================================= the child */
static void set_limit(int resource, unsigned long long value)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0)
        return;
    rlim_t v = (rlim_t)value;
    /* Never raise: a hard limit lower than asked for stays. */
    if (rl.rlim_max != RLIM_INFINITY && v > rl.rlim_max)
        v = rl.rlim_max;
    rl.rlim_cur = v;
    rl.rlim_max = v;
    setrlimit(resource, &rl);
}

/* Every descriptor from 3 up closes on exec (the status pipe is one of them already). */
static void cloexec_from_3(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* What the child execs: prepared before fork, so that the child only calls what is safe
 * between fork and exec in a program with threads. */
struct exec_plan {
    char *const *argv;
    char **sb_argv, **sb_env; /* non-NULL: exec bwrap with these */
    char **env;               /* without a sandbox: set in the child */
    struct strlist owner;
    long nproc_limit;
    int gate_fd;              /* the child's end of the gate, or -1 */
    struct threads_only threads_only; /* fd -1: no filter */
};

static void child_exec(const struct run_spec *s, const struct exec_plan *x, int out_w, int err_w,
                       int status_w)
{
    setsid();
    if (s->nice > 0)
        setpriority(PRIO_PROCESS, 0, s->nice);
    if (s->cpu_s > 0)
        set_limit(RLIMIT_CPU, (unsigned long long)(s->cpu_s + 1));
    if (s->file_bytes > 0)
        set_limit(RLIMIT_FSIZE, s->file_bytes);
    if (s->open_files > 0)
        set_limit(RLIMIT_NOFILE, (unsigned long long)s->open_files);
    if (s->data_bytes > 0)
        set_limit(RLIMIT_DATA, s->data_bytes);
    if (x->nproc_limit > 0)
        set_limit(RLIMIT_NPROC, (unsigned long long)x->nproc_limit);
    /* No core files: a crashing student program must not fill the disk. */
    set_limit(RLIMIT_CORE, 0);

    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        goto fail;
    cloexec_from_3();
    /* the gate's end, as LAB_GATE_FD and open across exec (dup2 clears close-on-exec, but
     * does nothing when the descriptor is that number already) */
    if (x->gate_fd >= 0 && (x->gate_fd == LAB_GATE_FD ? fcntl(LAB_GATE_FD, F_SETFD, 0)
                                                      : dup2(x->gate_fd, LAB_GATE_FD)) < 0)
        goto fail;
    /* the filter's program for bwrap, from a descriptor above the gate's (threads_only.c) */
    if (x->threads_only.fd >= 0 && x->sb_argv && dup2(x->threads_only.fd, THREADS_ONLY_FD) < 0)
        goto fail;
    if (s->cwd && chdir(s->cwd) != 0)
        goto fail;
    signal(SIGPIPE, SIG_DFL);
    /* no signal blocked that the grader's thread blocked (gpulock.c's wake-up tick) */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (x->sb_argv) {
        execve(x->sb_argv[0], x->sb_argv, x->sb_env);
        goto fail;
    }
    for (char **e = x->env; e && *e; e++)
        if (putenv(*e) != 0)
            goto fail;
    if (x->threads_only.fd >= 0 && threads_only_install(&x->threads_only) != 0)
        goto fail;
    execvp(x->argv[0], x->argv);
fail:;
    int err = errno;
    if (write(status_w, &err, sizeof err) < 0)
        _exit(127);
    _exit(127);
}

/* ======================================================================= capture */
struct capture {
    int fd;          /* read end, -1 once closed */
    FILE *file;      /* NULL: discard */
    size_t seen, kept, cap;
    int truncated;
};

static void capture_read(struct capture *c)
{
    char buf[65536];
    ssize_t n = read(c->fd, buf, sizeof buf);
    if (n <= 0) {
        if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            close(c->fd);
            c->fd = -1;
        }
        return;
    }
    c->seen += (size_t)n;
    size_t room = c->kept < c->cap ? c->cap - c->kept : 0;
    size_t take = (size_t)n < room ? (size_t)n : room;
    if (c->file && take)
        fwrite(buf, 1, take, c->file);
    c->kept += take;
    if (take < (size_t)n && !c->truncated) {
        c->truncated = 1;
        if (c->file)
            fprintf(c->file, "\n[output cut at %zu bytes]\n", c->cap);
    }
}

/* Reads what is ready on the open captures, waiting up to ms; 1 when gate (>= 0) is ready
 * to be read as well. */
static int capture_poll(struct capture *caps, int n, int ms, int gate)
{
    struct pollfd p[3];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (caps[i].fd >= 0)
            p[k++] = (struct pollfd){.fd = caps[i].fd, .events = POLLIN};
    if (gate >= 0)
        p[k++] = (struct pollfd){.fd = gate, .events = POLLIN};
    if (k == 0) {
        if (ms > 0)
            nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
        return 0;
    }
    if (poll(p, (nfds_t)k, ms) <= 0)
        return 0;
    int gate_ready = 0;
    for (int j = 0; j < k; j++)
        if (p[j].revents) {
            gate_ready |= p[j].fd == gate;
            for (int i = 0; i < n; i++)
                if (caps[i].fd == p[j].fd)
                    capture_read(&caps[i]);
        }
    return gate_ready;
}

static FILE *open_out(const char *path)
{
    return path ? fopen(path, "w") : NULL;
}

/* ======================================================================= run */
/* The child's environment additions: the caller's, and with a gate its variable. */
static char **plan_env(const struct run_spec *s, int gate_fd, struct strlist *owner)
{
    size_t from = owner->n;
    for (const char *const *e = s->env; e && *e; e++)
        strlist_push(owner, *e);
    if (gate_fd >= 0) {
        char *kv = xasprintf("%s=%d", LAB_GATE_ENV, LAB_GATE_FD);
        strlist_push(owner, kv);
        free(kv);
    }
    char **v = xcalloc(owner->n - from + 1, sizeof *v);
    for (size_t i = from; i < owner->n; i++)
        v[i - from] = owner->v[i];
    return v;
}

static void plan_init(const struct run_spec *s, struct exec_plan *x, int gate_fd)
{
    memset(x, 0, sizeof *x);
    x->argv = s->argv;
    x->gate_fd = gate_fd;
    x->nproc_limit = s->nproc_margin > 0 ? proc_user_tasks(getuid()) + s->nproc_margin : 0;
    x->env = plan_env(s, gate_fd, &x->owner);
    x->threads_only.fd = -1;
    char err[256];
    /* where the filter cannot be built (a kernel without seccomp) the run goes on, bounded by
     * the count of its processes (check_bounds) as every run is */
    if (s->threads_only)
        threads_only_build(&x->threads_only, err, sizeof err);
    if (s->sandbox && !sandbox_unavailable()) {
        x->sb_argv = sandbox_argv(s->sandbox, s->argv, s->cwd,
                                  x->threads_only.fd >= 0 ? THREADS_ONLY_FD : -1, &x->owner);
        x->sb_env = sandbox_env(s->sandbox, (const char *const *)x->env, &x->owner);
    }
}

static void plan_free(struct exec_plan *x)
{
    threads_only_free(&x->threads_only);
    free(x->sb_argv);
    free(x->sb_env);
    free(x->env);
    strlist_free(&x->owner);
}

/* Why the child must be stopped now, or RUN_EXITED while it may go on. */
static enum run_end check_bounds(const struct run_spec *s, const struct exec_plan *x, pid_t pid,
                                 const struct capture *caps, double elapsed, double *scans,
                                 struct run_result *res)
{
    if (s->wall_s > 0 && elapsed > s->wall_s)
        return RUN_TIMED_OUT;
    /* elapsed leaves out the wait at the gate: past it, the run holds its turn at the GPU
     * until it says it is done */
    if (s->turn_s > 0 && res->gate_passed && res->done_s <= 0 &&
        elapsed - res->ready_s > s->turn_s) {
        res->over_turn = 1;
        res->turn_s = s->turn_s;
        return RUN_TIMED_OUT;
    }
    if (s->cancel && *s->cancel)
        return RUN_CANCELLED;
    if (s->flood_bytes > 0 && (caps[0].seen > s->flood_bytes || caps[1].seen > s->flood_bytes))
        return RUN_FLOODED;
    if (s->max_procs > 0 && (elapsed - scans[0]) * 1000 >= PROC_SCAN_MS) {
        scans[0] = elapsed;
        int extra = x->sb_argv ? SANDBOX_PROCS : 0;
        if (proc_count(pid, x->sb_argv != NULL) > s->max_procs + extra)
            return RUN_FORKED;
    }
    if (s->disk_bytes > 0 && s->disk_dir && (elapsed - scans[1]) * 1000 >= DISK_SCAN_MS) {
        scans[1] = elapsed;
        if (sandbox_disk_usage(s->disk_dir) > s->disk_bytes)
            return RUN_DISK_FULL;
    }
    return RUN_EXITED;
}

/* ======================================================================= witness */
/* Reads exactly n bytes, waiting at most until deadline (now_s). */
static int read_by(int fd, void *p, size_t n, double deadline)
{
    char *c = p;
    while (n > 0) {
        int ms = (int)((deadline - now_s()) * 1000);
        if (ms <= 0)
            return -1;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int r = poll(&pf, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

int gate_commit_read(int fd, struct gate_witness *w, int timeout_ms)
{
    double deadline = now_s() + timeout_ms / 1000.0;
    uint32_t head[2];
    w->committed = 0;
    free(w->hash);
    w->hash = NULL;
    w->warmup = w->reps = 0;
    if (read_by(fd, head, sizeof head, deadline) != 0 || head[1] > LAB_GATE_MAX_REPS)
        return -1;
    w->warmup = head[0];
    w->reps = head[1];
    if (w->key && w->reps) {
        w->hash = xcalloc(w->reps, sizeof *w->hash);
        if (read_by(fd, w->hash, w->reps * sizeof *w->hash, deadline) != 0)
            return -1;
    }
    w->committed = 1;
    return 0;
}

void gate_witness_pick(struct gate_witness *w)
{
    int want = w->picks_wanted < LAB_GATE_PICKS ? w->picks_wanted : LAB_GATE_PICKS;
    if (want > (int)w->reps)
        want = (int)w->reps;
    w->n_picks = 0;
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
        seed = (uint64_t)(now_s() * 1e9) ^ ((uint64_t)getpid() << 32);
    if (fd >= 0)
        close(fd);
    while (w->n_picks < want) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int r = (int)((seed >> 33) % w->reps), seen = 0;
        for (int i = 0; i < w->n_picks; i++)
            seen |= w->picks[i] == r;
        if (!seen)
            w->picks[w->n_picks++] = r;
    }
}

void gate_witness_free(struct gate_witness *w)
{
    free(w->hash);
    w->hash = NULL;
}

double gate_witness_s(const struct gate_witness *w)
{
    return w->go_at > 0 && w->done_at > w->go_at ? w->done_at - w->go_at : -1;
}

/* How long a program may take to write its commitment once it said done (a few kilobytes). */
#define COMMIT_TIMEOUT_MS 2000

/* The child wrote on its gate (*gate, the parent's end). First LAB_GATE_READY: its turn is
 * taken (the time it took goes to res) and it is let go. Then, with a done() to call,
 * LAB_GATE_DONE: its turn is handed on. The parent's end is closed after the last word it
 * waits for, or on any other: the gate opens once and closes once, and nothing the child
 * writes there later is read. */
static void gate_answer(const struct run_spec *s, int *gate, double t0, struct run_result *res)
{
    char c = 0;
    ssize_t n;
    do
        n = read(*gate, &c, 1);
    while (n < 0 && errno == EINTR);
    int keep = 0;
    if (!res->gate_passed && n == 1 && c == LAB_GATE_READY) {
        double t = now_s();
        res->ready_s = t - t0;
        s->gate->ready(s->gate->ctx);
        res->gate_wait_s = now_s() - t;
        struct gate_witness *w = s->gate->witness;
        unsigned char go[1 + LAB_GATE_KEY_BYTES];
        uint64_t key = w ? w->key : 0;
        go[0] = LAB_GATE_GO;
        memcpy(go + 1, &key, sizeof key);
        /* the child may be gone */
        res->gate_passed = send(*gate, go, sizeof go, MSG_NOSIGNAL) == (ssize_t)sizeof go;
        if (w && res->gate_passed)
            w->go_at = now_s();
        keep = res->gate_passed && s->gate->done;
    } else if (res->gate_passed && n == 1 && c == LAB_GATE_DONE) {
        double at = now_s();
        res->done_s = at - t0 - res->gate_wait_s;
        struct gate_witness *w = s->gate->witness;
        if (w)
            w->done_at = at;
        /* the turn is handed on at the word, before the commitment is read: a program that
         * stalls there holds no turn */
        s->gate->done(s->gate->ctx);
        if (w && gate_commit_read(*gate, w, COMMIT_TIMEOUT_MS) == 0) {
            gate_witness_pick(w);
            unsigned char pick[1 + sizeof(uint32_t) * (1 + LAB_GATE_PICKS)];
            uint32_t np = (uint32_t)w->n_picks;
            size_t len = 1;
            pick[0] = LAB_GATE_PICK;
            memcpy(pick + len, &np, sizeof np);
            len += sizeof np;
            for (int i = 0; i < w->n_picks; i++) {
                uint32_t r = (uint32_t)w->picks[i];
                memcpy(pick + len, &r, sizeof r);
                len += sizeof r;
            }
            if (send(*gate, pick, len, MSG_NOSIGNAL) != (ssize_t)len)
                w->n_picks = 0; /* the child is gone: nothing it dumps is read as picked */
        }
    }
    if (!keep) {
        close(*gate);
        *gate = -1;
    }
}

/* Copies the child's output until it exits, stopping it at the first bound it passes. */
static enum run_end watch(const struct run_spec *s, const struct exec_plan *x, pid_t pid,
                          struct capture *caps, double t0, int *status, int *gate,
                          struct run_result *res)
{
    enum run_end forced = RUN_EXITED;
    double scans[2] = {0, 0};
    pid_t *killed = NULL;
    size_t n_killed = 0;
    unsigned long ns = 0;
    for (;;) {
        if (capture_poll(caps, 2, POLL_MS, forced == RUN_EXITED ? *gate : -1))
            gate_answer(s, gate, t0, res);
        if (waitpid(pid, status, WNOHANG) == pid)
            break;
        if (forced == RUN_EXITED) {
            forced = check_bounds(s, x, pid, caps, now_s() - t0 - res->gate_wait_s, scans, res);
            if (forced != RUN_EXITED)
                n_killed = proc_kill_tree(pid, x->sb_argv != NULL, &killed, &ns);
        }
    }
    proc_kill_wait(killed, n_killed, ns);
    free(killed);
    return forced;
}

static void set_result(struct run_result *res, int st_fd, enum run_end forced, int status,
                       int sandboxed)
{
    /* bwrap exits 128 + N when the program was killed by signal N */
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    int relayed = sandboxed && code > 128 && code < 128 + NSIG ? code - 128 : 0;
    int child_errno = 0;
    ssize_t got = read(st_fd, &child_errno, sizeof child_errno);
    if (got == (ssize_t)sizeof child_errno) {
        res->end = RUN_SPAWN_FAILED;
        res->spawn_errno = child_errno;
    } else if (forced != RUN_EXITED) {
        res->end = forced;
    } else if (WIFSIGNALED(status) || relayed) {
        res->end = RUN_SIGNALED;
        res->term_signal = relayed ? relayed : WTERMSIG(status);
    } else {
        res->end = RUN_EXITED;
        res->exit_status = WEXITSTATUS(status);
    }
}

int run_sandboxed(const struct run_spec *s, struct run_result *res)
{
    memset(res, 0, sizeof *res);
    int merged = s->stdout_path && s->stderr_path && strcmp(s->stdout_path, s->stderr_path) == 0;
    int out_p[2], err_p[2] = {-1, -1}, st_p[2], gate_p[2] = {-1, -1};
    if (pipe2(out_p, O_CLOEXEC) || (!merged && pipe2(err_p, O_CLOEXEC)) ||
        pipe2(st_p, O_CLOEXEC) ||
        (s->gate && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate_p))) {
        res->end = RUN_SPAWN_FAILED;
        res->spawn_errno = errno;
        return 0;
    }
    struct exec_plan x;
    plan_init(s, &x, gate_p[1]);
    double t0 = now_s();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        child_exec(s, &x, out_p[1], merged ? out_p[1] : err_p[1], st_p[1]);
    int fork_errno = errno;
    close(out_p[1]);
    if (!merged)
        close(err_p[1]);
    close(st_p[1]);
    if (gate_p[1] >= 0)
        close(gate_p[1]);
    size_t cap = s->output_cap ? s->output_cap : DEFAULT_CAP;
    struct capture caps[2] = {
        {.fd = out_p[0], .file = pid > 0 ? open_out(s->stdout_path) : NULL, .cap = cap},
        {.fd = merged ? -1 : err_p[0], .file = merged || pid < 0 ? NULL : open_out(s->stderr_path),
         .cap = cap},
    };
    int status = 0;
    enum run_end forced =
        pid > 0 ? watch(s, &x, pid, caps, t0, &status, &gate_p[0], res) : RUN_SPAWN_FAILED;
    res->wall_s = now_s() - t0;
    if (gate_p[0] >= 0)
        close(gate_p[0]);
    if (pid > 0)
        kill(-pid, SIGKILL); /* what the child left in its group goes with it; then the pipes end */
    double drain_end = now_s() + 2.0;
    while (pid > 0 && (caps[0].fd >= 0 || caps[1].fd >= 0) && now_s() < drain_end)
        capture_poll(caps, 2, POLL_MS, -1);
    for (int i = 0; i < 2; i++) {
        if (caps[i].fd >= 0)
            close(caps[i].fd);
        if (caps[i].file)
            fclose(caps[i].file);
        res->truncated |= caps[i].truncated;
    }
    if (pid > 0)
        set_result(res, st_p[0], forced, status, x.sb_argv != NULL);
    else {
        res->end = RUN_SPAWN_FAILED;
        res->spawn_errno = fork_errno;
    }
    close(st_p[0]);
    plan_free(&x);
    return 0;
}

void run_describe(const struct run_spec *s, const struct run_result *r, char *buf, size_t len)
{
    switch (r->end) {
    case RUN_EXITED:
        snprintf(buf, len, "exit status %d", r->exit_status);
        break;
    case RUN_SIGNALED: {
        const char *abbrev = sigabbrev_np(r->term_signal);
        char name[32];
        if (abbrev)
            snprintf(name, sizeof name, "SIG%s", abbrev);
        else
            snprintf(name, sizeof name, "signal %d", r->term_signal);
        snprintf(buf, len, "killed by %s (%s)%s", name, strsignal(r->term_signal),
                 r->term_signal == SIGXCPU ? ": CPU time limit" :
                 r->term_signal == SIGXFSZ ? ": file size limit" :
                 r->term_signal == SIGSYS && s->threads_only
                     ? ": it tried to start a process, and a task's program may start "
                       "threads only" : "");
        break;
    }
    case RUN_TIMED_OUT:
        if (r->over_turn)
            snprintf(buf, len, "timed out: still running %.1f s after its turn at the GPU began "
                     "(process group killed)", r->turn_s);
        else
            snprintf(buf, len, "timed out after %.1f s (process group killed)", s->wall_s);
        break;
    case RUN_FLOODED:
        snprintf(buf, len, "killed: printed more than %zu MiB", s->flood_bytes >> 20);
        break;
    case RUN_FORKED:
        snprintf(buf, len, "killed: more than %d processes", s->max_procs);
        break;
    case RUN_DISK_FULL:
        snprintf(buf, len, "killed: wrote more than %llu MiB", s->disk_bytes >> 20);
        break;
    case RUN_CANCELLED:
        snprintf(buf, len, "cancelled");
        break;
    case RUN_SPAWN_FAILED:
        snprintf(buf, len, "could not run %s%s: %s", s->argv[0],
                 s->sandbox && !sandbox_unavailable() ? " in its sandbox" : "",
                 strerror(r->spawn_errno));
        break;
    }
}

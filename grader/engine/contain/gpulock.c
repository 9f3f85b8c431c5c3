/* gpulock.c — see gpulock.h.
 *
 * flock alone would let shared holders starve a run that needs the GPU alone: while one
 * sanitizer run still holds the lock another may join it, and the run waits on. So every
 * taker of the whole GPU first passes a turnstile (a third lock file, taken exclusively and
 * dropped once the GPU's lock is held): a run waiting for the GPU alone holds the turnstile,
 * and no new shared user gets by.
 *
 * The turnstile alone lets the runs that need the GPU alone and the shared users take turns:
 * each run alone then waits for the shared users that got in since the last to drain, as long
 * as the longest of their runs (a sanitizer's, seconds). So the runs alone queue: each holds
 * path.alone shared from the start of its wait to the end of its turn, and a new shared user
 * first waits until it can take path.alone exclusively (none queued), then lets it go at once.
 * The runs alone then go one after another, and the shared users drain once for all of them.
 * A shared user waits for the queue only before it holds anything, so the rule of gpulock.h
 * (a shared holder waits for nothing but its program) still holds. */
#include "gpulock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* A wait that the grading's cancel flag ends (Ctrl-C, SIGTERM, the TUI's cancel): flock
 * blocks, so a lock passes on the moment it is free, and a timer of the waiting thread's own
 * interrupts it every 100 ms to look at the flag. The tick's handler does nothing and is
 * installed without SA_RESTART, so that flock returns EINTR; the thread keeps the tick blocked
 * outside its waits (a late one stays pending until the next wait, which it wakes once). */
static void wake_handler(int sig) { (void)sig; }
static void wake_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = wake_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGRTMIN, &sa, NULL);
}

/* The lock file at path, locked how (LOCK_SH, LOCK_EX; with LOCK_NB, one try and no wait). */
static int lock_fd(const char *path, int how, const volatile sig_atomic_t *cancel)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, SIGRTMIN);
    timer_t timer;
    const int waits = !(how & LOCK_NB);
    int ticking = 0, rc = flock(fd, how | LOCK_NB);
    if (rc != 0 && waits && (errno == EWOULDBLOCK || errno == EINTR) && cancel) {
        pthread_once(&once, wake_install);
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGRTMIN;
        ev._sigev_un._tid = gettid(); /* sigev_notify_thread_id, which older C libraries lack */
        const struct itimerspec every = {{0, 100000000}, {0, 100000000}};
        if (timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0) {
            ticking = 1;
            timer_settime(timer, 0, &every, NULL);
            pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
        }
    }
    while (rc != 0 && waits && (errno == EWOULDBLOCK || errno == EINTR)) {
        if (cancel && *cancel) {
            errno = ECANCELED;
            break;
        }
        rc = flock(fd, how);
    }
    if (ticking) {
        pthread_sigmask(SIG_BLOCK, &wake, NULL);
        timer_delete(timer);
    }
    if (rc != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* The GPU as a whole, through the turnstile: shared (after the queue of runs alone, *queue
 * untouched) or exclusive (*queue: a place in that queue, kept until the turn ends). */
static int whole_take(const char *path, int how, int *queue, const volatile sig_atomic_t *cancel)
{
    char *queue_path = xasprintf("%s.alone", path);
    int q = lock_fd(queue_path, how == LOCK_EX ? LOCK_SH : LOCK_EX, cancel);
    free(queue_path);
    if (q >= 0 && how == LOCK_EX)
        *queue = q;
    else if (q >= 0)
        close(q);
    else if (cancel && *cancel)
        return -1;
    char *turn_path = xasprintf("%s.turn", path);
    int turn = lock_fd(turn_path, LOCK_EX, cancel);
    free(turn_path);
    int fd = turn >= 0 || !cancel || !*cancel ? lock_fd(path, how, cancel) : -1;
    if (turn >= 0)
        close(turn);
    return fd;
}

/* The timed runs' turn (LOCK_EX; LOCK_EX | LOCK_NB: -1 at once when another run has it). */
static int timed_take(const char *path, int how, const volatile sig_atomic_t *cancel)
{
    char *timed_path = xasprintf("%s.timed", path);
    int fd = lock_fd(timed_path, how, cancel);
    free(timed_path);
    return fd;
}

/* The timed runs' turn, then the GPU shared (h holds neither). */
static void timed_then_shared(struct gpu_hold *h, const char *path,
                              const volatile sig_atomic_t *cancel)
{
    h->timed = timed_take(path, LOCK_EX, cancel);
    if (h->timed >= 0)
        h->whole = whole_take(path, LOCK_SH, NULL, cancel);
    if (h->whole < 0)
        gpu_hold_drop(h);
}

/* A timed run holds the GPU shared from its start to its end, and the timed runs' turn while
 * it times: so a run that needs the GPU alone (the whole of it, exclusive) excludes the timed
 * runs as well as the untimed ones. No taker waits for the whole GPU while it holds the GPU
 * shared: a run at its gate drops its shared hold before it waits for its turn (the GPU alone,
 * or the timed runs' turn when another run has it), so no two takers wait on each other, and
 * a run waiting for the GPU alone waits for the programs that use the GPU, not for the first
 * looks queued at their gates. */
struct gpu_hold gpu_hold_take(const char *path, enum gpu_use use,
                              const volatile sig_atomic_t *cancel)
{
    struct gpu_hold h = {-1, -1, -1};
    if (!path)
        return h;
    if (use == GPU_TIMED) {
        timed_then_shared(&h, path, cancel);
        return h;
    }
    h.whole = whole_take(path, use == GPU_ALONE ? LOCK_EX : LOCK_SH, &h.queue, cancel);
    if (h.whole < 0 && h.queue >= 0) {
        close(h.queue);
        h.queue = -1;
    }
    return h;
}

void gpu_hold_turn(struct gpu_hold *h, const char *path, enum gpu_use use,
                   const volatile sig_atomic_t *cancel)
{
    if (!path || use == GPU_SHARED)
        return;
    if (use == GPU_ALONE) {
        gpu_hold_drop(h);
        *h = gpu_hold_take(path, GPU_ALONE, cancel);
        return;
    }
    if (h->timed >= 0)
        return;
    if (h->whole >= 0) {
        h->timed = timed_take(path, LOCK_EX | LOCK_NB, NULL);
        if (h->timed >= 0)
            return;
        /* another run times: this one waits at its gate, its program idle, holding nothing */
        gpu_hold_drop(h);
    }
    timed_then_shared(h, path, cancel);
}

void gpu_hold_end_turn(struct gpu_hold *h, enum gpu_use use)
{
    if (use == GPU_ALONE && h->whole >= 0) {
        /* flock(2) promises a conversion, not an atomic one; Linux makes it under the file's
         * lock list spinlock, so no waiter takes the GPU alone in between */
        int rc;
        do
            rc = flock(h->whole, LOCK_SH);
        while (rc != 0 && errno == EINTR);
        if (rc != 0) {
            close(h->whole); /* the lock is lost: the run goes on as one that holds nothing */
            h->whole = -1;
        }
    }
    if (h->queue >= 0) /* out of the queue: shared users may come in again */
        close(h->queue);
    if (h->timed >= 0)
        close(h->timed);
    h->timed = h->queue = -1;
}

int gpu_measure_take(const char *path, const char *key, const volatile sig_atomic_t *cancel)
{
    if (!path || !key)
        return -1;
    char *measure_path = xasprintf("%s.measure.%s", path, key);
    int fd = lock_fd(measure_path, LOCK_EX, cancel);
    free(measure_path);
    return fd;
}

int gpu_hold_held(const struct gpu_hold *h)
{
    return h->whole >= 0 || h->timed >= 0;
}

void gpu_hold_drop(struct gpu_hold *h)
{
    if (h->timed >= 0)
        close(h->timed);
    if (h->whole >= 0)
        close(h->whole);
    if (h->queue >= 0)
        close(h->queue);
    h->timed = h->whole = h->queue = -1;
}

/* The one GPU CUDA_VISIBLE_DEVICES names by index, -1 when it names none, several or a UUID. */
static int visible_gpu(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    if (!v || !*v || strlen(v) > 9 || strspn(v, "0123456789") != strlen(v))
        return -1;
    return atoi(v);
}

char *gpu_file_path(const char *dir, int gpu, const char *ext)
{
    if (gpu < 0)
        gpu = visible_gpu();
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    if (gpu >= 0)
        return xasprintf("%s/%s-gpu%d%s", dir, host, gpu, ext);
    return xasprintf("%s/%s-gpu%s", dir, host, ext);
}

/* watch.c — exercise files watched for saves (watch.h). */
#include "watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"

struct watched_file {
    char *path;
    const char *name;             /* the part after the directory, inside path */
    int wd;                       /* its directory's watch; -1 when not watched */
    char hash[HASH_HEX_LEN + 1];  /* content last reported (or found at start) */
    double marked;                /* monotonic time of the last event; 0 when none */
};

struct exercise_watch {
    int fd;
    struct watched_file *files;
    size_t n;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Watches the directory of f->path; 0 or -1. */
static int watch_dir_of(struct exercise_watch *w, struct watched_file *f)
{
    const char *slash = strrchr(f->path, '/');
    char *dir = slash ? strndup(f->path, (size_t)(slash - f->path)) : strdup(".");
    f->name = slash ? slash + 1 : f->path;
    if (!dir)
        return -1;
    f->wd = inotify_add_watch(w->fd, dir[0] ? dir : "/", IN_CLOSE_WRITE | IN_MOVED_TO);
    free(dir);
    return f->wd < 0 ? -1 : 0;
}

struct exercise_watch *watch_start(const char *const *paths, size_t n)
{
    struct exercise_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->files = calloc(n + 1, sizeof *w->files);
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (!w->files || w->fd < 0) {
        int e = w->fd < 0 ? errno : ENOMEM;
        watch_stop(w);
        errno = e;
        return NULL;
    }
    size_t watched = 0;
    for (size_t i = 0; i < n; i++) {
        struct watched_file *f = &w->files[w->n++];
        f->wd = -1;
        f->path = strdup(paths[i]);
        if (!f->path)
            continue;
        if (hash_file_hex(f->path, f->hash) != 0)
            f->hash[0] = '\0';
        watched += watch_dir_of(w, f) == 0;
    }
    if (watched == 0) {
        watch_stop(w);
        errno = ENOENT;
        return NULL;
    }
    return w;
}

void watch_stop(struct exercise_watch *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    for (size_t i = 0; i < w->n; i++)
        free(w->files[i].path);
    free(w->files);
    free(w);
}

int watch_fd(const struct exercise_watch *w)
{
    return w->fd;
}

static void mark(struct exercise_watch *w, int wd, const char *name, double now)
{
    for (size_t i = 0; i < w->n; i++) {
        struct watched_file *f = &w->files[i];
        if (f->path && f->wd == wd && strcmp(f->name, name) == 0)
            f->marked = now;
    }
}

void watch_read(struct exercise_watch *w)
{
    _Alignas(struct inotify_event) char buf[4096];
    ssize_t len;
    double now = now_s();
    while ((len = read(w->fd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            if (ev->len)
                mark(w, ev->wd, ev->name, now);
        }
    }
}

int watch_timeout_ms(const struct exercise_watch *w)
{
    double now = now_s(), soonest = -1;
    for (size_t i = 0; i < w->n; i++) {
        if (w->files[i].marked == 0)
            continue;
        double left = w->files[i].marked + WATCH_DEBOUNCE_MS / 1000.0 - now;
        if (soonest < 0 || left < soonest)
            soonest = left > 0 ? left : 0;
    }
    return soonest < 0 ? -1 : (int)(soonest * 1000) + 1;
}

size_t watch_due(struct exercise_watch *w, size_t *out, size_t max)
{
    double now = now_s();
    size_t n = 0;
    for (size_t i = 0; i < w->n && n < max; i++) {
        struct watched_file *f = &w->files[i];
        if (f->marked == 0 || now - f->marked < WATCH_DEBOUNCE_MS / 1000.0)
            continue;
        f->marked = 0;
        char hash[HASH_HEX_LEN + 1];
        if (hash_file_hex(f->path, hash) != 0 || strcmp(hash, f->hash) == 0)
            continue;
        memcpy(f->hash, hash, sizeof hash);
        out[n++] = i;
    }
    return n;
}

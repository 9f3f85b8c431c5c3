/* refcache.c — see refcache.h. */
#include "refcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "util.h"

/* Unix time: measurements are compared across processes (and Slurm jobs) of one machine. */
static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* dir/key.ref, the key's characters outside [A-Za-z0-9._-] made '_'. */
static char *key_path(const char *dir, const char *key)
{
    char *name = xasprintf("%s.ref", key);
    for (char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-'))
            *p = '_';
    char *path = path_join(dir, name);
    free(name);
    return path;
}

/* The key's log, opened for reading and appending and locked (LOCK_EX); NULL on error. */
static FILE *open_locked(const char *dir, const char *key)
{
    if (mkdir_p(dir) != 0)
        return NULL;
    char *path = key_path(dir, key);
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    free(path);
    if (fd < 0)
        return NULL;
    if (flock(fd, LOCK_EX) != 0) {
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "a+");
    if (!f)
        close(fd);
    return f;
}

/* Reads the log: the newest measurement (found: 0 or 1) and the uses since it. */
static void read_log(FILE *f, struct ref_time *last, int *found, int *uses)
{
    char line[256];
    *found = *uses = 0;
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        struct ref_time t;
        t.turn_s = -1; /* a log from before turn_s was kept has five numbers */
        t.witness_s = -1; /* and from before the witness, six */
        t.calls = 0;
        if (line[0] == 'U') {
            (*uses)++;
        } else if (sscanf(line, "M %lf %lf %lf %lf %lf %lf %lf %d", &t.at, &t.ms, &t.min_ms,
                          &t.max_ms, &t.floor_ms, &t.turn_s, &t.witness_s, &t.calls) >= 5 &&
                   t.ms > 0) {
            *last = t;
            *found = 1;
            *uses = 0;
        }
    }
}

static int close_log(FILE *f, int ok)
{
    int err = errno;
    if (fclose(f) != 0 && ok) /* closing drops the lock */
        return -1;
    errno = err;
    return ok ? 0 : -1;
}

/* The newest measurement of key into *t: 1 when there is one that may serve, 0 when none, -1
 * when the log cannot be read or written. count: a use, bounded by max_age_s and max_uses and
 * counted in the log; else any measurement serves and nothing is written. */
static int take(const char *dir, const char *key, double max_age_s, int max_uses, int count,
                struct ref_time *t)
{
    FILE *f = open_locked(dir, key);
    if (!f)
        return -1;
    struct ref_time last;
    int found, uses;
    read_log(f, &last, &found, &uses);
    /* the measurement serves the grading that made it, so that is one use already */
    int serves = found && (!count || (max_age_s > 0 && wall_now() - last.at < max_age_s &&
                                      uses + 1 < max_uses));
    int ok = 1;
    if (serves && count)
        ok = fputs("U\n", f) >= 0 && fflush(f) == 0;
    if (serves)
        *t = last;
    if (close_log(f, ok) != 0)
        return -1;
    return serves;
}

int refcache_take(const char *dir, const char *key, double max_age_s, int max_uses,
                  struct ref_time *t)
{
    return take(dir, key, max_age_s, max_uses, 1, t);
}

int refcache_peek(const char *dir, const char *key, struct ref_time *t)
{
    return take(dir, key, 0, 0, 0, t);
}

double refcache_age_s(const struct ref_time *t)
{
    double age = wall_now() - t->at;
    return age > 0 ? age : 0;
}

int refcache_put(const char *dir, const char *key, const struct ref_time *t)
{
    FILE *f = open_locked(dir, key);
    if (!f)
        return -1;
    int ok = fprintf(f, "M %.6f %.9g %.9g %.9g %.9g %.9g %.9g %d\n", wall_now(), t->ms,
                     t->min_ms, t->max_ms, t->floor_ms, t->turn_s, t->witness_s, t->calls) > 0 &&
             fflush(f) == 0;
    return close_log(f, ok);
}

/* fs.c — paths, directories, whole-file reads and atomic writes (fs.h). */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

char *path_join(const char *a, const char *b)
{
    if (b[0] == '/' || !a[0])
        return xstrdup(b);
    size_t n = strlen(a);
    return xasprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

int mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    int parent_err = 0; /* why a missing parent could not be made: the reason to report */
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0755) != 0 && errno != EEXIST && !parent_err)
                parent_err = errno;
            *s = '/';
        }
    int rc = mkdir(p, 0755) == 0 || (errno == EEXIST && is_dir(p)) ? 0 : -1;
    int saved = rc != 0 && errno == ENOENT && parent_err ? parent_err : errno;
    free(p);
    errno = saved;
    return rc;
}

char *dir_unwritable(const char *dir)
{
    if (mkdir_p(dir) != 0) {
        int err = errno;
        char *at = xstrdup(dir);
        for (char *slash; access(at, F_OK) != 0 && (slash = strrchr(at, '/')) && slash > at;)
            *slash = 0;
        if (access(at, F_OK) != 0)
            strcpy(at, "/");
        errno = err;
        return at;
    }
    char *probe = xasprintf("%s/.write-probe-XXXXXX", dir);
    int fd = mkstemp(probe);
    int err = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    free(probe);
    if (fd >= 0)
        return NULL;
    errno = err;
    return xstrdup(dir);
}

int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *read_text_file(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = xcalloc(cap, 1);
    while (n < max && (got = fread(buf + n, 1, (cap - 1 - n < max - n ? cap - 1 - n : max - n), f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = xrealloc(buf, cap *= 2);
    }
    buf[n] = 0;
    fclose(f);
    return buf;
}

int write_atomic(const char *path, const char *data, size_t len)
{
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int ok = done == len && fsync(fd) == 0;
    int saved = ok ? 0 : (errno ? errno : EIO);
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok)
        unlink(tmp);
    free(tmp);
    errno = saved;
    return ok ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void remove_tree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

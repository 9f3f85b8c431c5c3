/* gpulock.c — see gpulock.h.
 *
 * flock alone would let shared holders starve a timed run: while one sanitizer run still
 * holds the lock another may join it, and the timed run waits on. So every taker first passes
 * a turnstile (a second lock file, taken exclusively and dropped once the GPU's lock is held):
 * a timed run waiting at the GPU's lock holds the turnstile, and no new shared user gets by. */
#include "gpulock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "util.h"

static int lock_fd(const char *path, int how)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int rc;
    do
        rc = flock(fd, how);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int gpu_lock_take(const char *path, enum gpu_use use)
{
    if (!path)
        return -1;
    char *turn_path = xasprintf("%s.turn", path);
    int turn = lock_fd(turn_path, LOCK_EX);
    free(turn_path);
    int fd = lock_fd(path, use == GPU_TIMED ? LOCK_EX : LOCK_SH);
    if (turn >= 0)
        close(turn);
    return fd;
}

char *gpu_file_path(const char *dir, int gpu, const char *ext)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    if (gpu >= 0)
        return xasprintf("%s/%s-gpu%d%s", dir, host, gpu, ext);
    return xasprintf("%s/%s-gpu%s", dir, host, ext);
}

void gpu_lock_drop(int fd)
{
    if (fd >= 0)
        close(fd);
}

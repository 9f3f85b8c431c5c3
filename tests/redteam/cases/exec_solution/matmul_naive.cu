// Hostile: become the reference solution, with the exercise's own arguments.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "matmul_naive.h"
void matmul_naive(const float *, const float *, float *, int, int, int) {}
void matmul_naive_host(const float *, const float *, float *, int, int, int) {}
__attribute__((constructor, used)) void redteam_attack(void)
{
    static char buf[4096];
    char *argv[32];
    int fd = open("/proc/self/cmdline", O_RDONLY), argc = 0;
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : 0;
    for (ssize_t i = 0; i < n && argc < 31; i += (ssize_t)strlen(buf + i) + 1)
        argv[argc++] = buf + i;
    argv[argc] = NULL;
    execv("@ROOT@/build/solutions/03-naive-matmul/matmul_naive", argv);
    _exit(0);
}

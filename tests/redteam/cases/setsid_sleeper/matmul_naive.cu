// Hostile: leave a process behind in a new session, out of reach of a process-group kill.
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
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            execlp("sleep", "sleep", "600", (char *)NULL);
            for (;;)
                pause();
        }
        _exit(0);
    }
    _exit(0);
}

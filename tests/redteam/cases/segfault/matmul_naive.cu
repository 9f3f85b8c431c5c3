// Hostile: write through a null pointer.
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
    volatile unsigned long addr = 16; /* volatile: the compiler cannot fold the fault away */
    *(volatile int *)addr = 1;
}

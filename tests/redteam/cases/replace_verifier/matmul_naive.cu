// Hostile: before main, overwrite the verifier with a script that passes everything, then
// exit 0 without dumping anything. Only the real verifier may judge: wrong, and no file changed.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "matmul_naive.h"
void matmul_naive(const float *, const float *, float *, int, int, int) {}
void matmul_naive_host(const float *, const float *, float *, int, int, int) {}
static void plant(const char *path)
{
    unlink(path);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("#!/bin/sh\nexit 0\n", f);
        fclose(f);
        chmod(path, 0755);
    }
}
__attribute__((constructor, used)) void redteam_attack(void)
{
    plant("@ROOT@/build/solutions/03-naive-matmul/matmul_naive");
    plant("@ROOT@/build/obj/solutions/03-naive-matmul/matmul_naive.o");
    plant("@ROOT@/build/common/liblab.a");
    _exit(0);
}

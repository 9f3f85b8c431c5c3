// Hostile: the compiler as a file reader. Its error would quote the file's first line.
#include "/etc/passwd"
#include "matmul_naive.h"
void matmul_naive(const float *, const float *, float *, int, int, int) {}
void matmul_naive_host(const float *, const float *, float *, int, int, int) {}

// Repetitions of a graded call: the seed of each one's inputs, and which of them are checked;
// the salt that decides where a sampled check looks. Also the lab's malloc that never returns
// NULL.
#include "lab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

void *lab_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of host memory (%zu bytes)\n", bytes);
        fflush(stderr);
        abort();
    }
    return p;
}

// calloc, not malloc and memset: it knows when fresh pages from the kernel are zero already,
// and it refuses a count whose product with the size does not fit (n * size wrapped before).
void *lab_xcalloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        fprintf(stderr, "error: out of host memory (%zu elements of %zu bytes)\n", n, size);
        fflush(stderr);
        abort();
    }
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "error: out of host memory (%zu bytes)\n", n * size);
        fflush(stderr);
        abort();
    }
    return p;
}

uint64_t lab_rep_seed(uint64_t seed, int rep)
{
    if (rep == 0)
        return seed;
    char tag[32];
    snprintf(tag, sizeof tag, "rep%d", rep);
    return lab_seed_derive(seed, tag);
}

// A value nobody could have known before this instant: the CPU's hardware random generator
// where there is one, mixed with its cycle counter and the clock. Read by instructions, not
// through a library call, so code linked into the same program cannot stand in for it.
static uint64_t fresh_entropy(void)
{
    uint64_t v = 0;
#if defined(__x86_64__)
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    v = (uint64_t)hi << 32 | lo;
    unsigned a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    if (c & (1u << 30)) { // RDRAND
        for (int tries = 0; tries < 10; tries++) {
            uint64_t r;
            unsigned char ok;
            __asm__ volatile("rdrand %0; setc %1" : "=r"(r), "=qm"(ok));
            if (ok) {
                v ^= r;
                break;
            }
        }
    }
#elif defined(__aarch64__)
    uint64_t cnt;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(cnt));
    v = cnt;
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return v ^ ((uint64_t)ts.tv_nsec << 17) ^ (uint64_t)ts.tv_sec;
}

int lab_pick_reps(int reps, int want, int *out)
{
    int n = want < reps ? want : reps;
    if (n <= 0)
        return 0;
    lab_rng r;
    lab_rng_seed(&r, fresh_entropy());
    // Floyd's sampling: n distinct values of [0, reps), each subset equally likely.
    int k = 0;
    for (int j = reps - n; j < reps; j++) {
        int t = (int)lab_rng_below(&r, (uint64_t)j + 1), seen = 0;
        for (int i = 0; i < k; i++)
            seen |= out[i] == t;
        out[k++] = seen ? j : t;
    }
    for (int i = 1; i < k; i++) // insertion sort: k is tiny
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return k;
}

uint64_t lab_fresh_key(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = 0;
    return v ^ fresh_entropy();
}

// ------------------------------------------------------------------ where checks look
static uint64_t check_salt; // 0: the sample is a function of the input seed alone

uint64_t lab_check_salt(void) { return check_salt; }

void lab_check_salt_set(uint64_t salt) { check_salt = salt; }

// The kernel's generator, mixed with fresh_entropy so that neither alone has to be trusted
// (getrandom can be missing or fail on an old kernel; fresh_entropy needs no system call).
uint64_t lab_check_salt_fresh(void)
{
    uint64_t salt = 0;
    if (getrandom(&salt, sizeof salt, 0) != (ssize_t)sizeof salt)
        salt = 0;
    salt ^= fresh_entropy();
    check_salt = salt ? salt : 1; // 0 would mean "unsalted"
    return check_salt;
}

uint64_t lab_check_seed(uint64_t seed, const char *tag)
{
    return lab_seed_derive(seed ^ check_salt, tag);
}

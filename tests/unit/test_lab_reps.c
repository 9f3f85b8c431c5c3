// The repetitions of a graded call: each one's seed, which are checked, the copy of their
// outputs, and the lab's malloc.
#include "cmocka_all.h"
#include "lab.h"
#include "parallel.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void rep_zero_keeps_the_seed_and_others_differ(void **state)
{
    (void)state;
    assert_true(lab_rep_seed(42, 0) == 42);
    uint64_t seen[8];
    for (int r = 0; r < 8; r++) {
        seen[r] = lab_rep_seed(42, r);
        for (int q = 0; q < r; q++)
            assert_true(seen[q] != seen[r]);
        assert_true(lab_rep_seed(42, r) == seen[r]); // deterministic: the verifier redraws it
        assert_true(r == 0 || lab_rep_seed(43, r) != seen[r]);
    }
}

static void picks_are_distinct_sorted_in_range(void **state)
{
    (void)state;
    int out[4], hits[5] = {0};
    for (int round = 0; round < 400; round++) {
        int n = lab_pick_reps(5, 2, out);
        assert_int_equal(n, 2);
        assert_true(out[0] >= 0 && out[0] < out[1] && out[1] < 5);
        hits[out[0]]++;
        hits[out[1]]++;
    }
    for (int r = 0; r < 5; r++) // each rep is picked 160 times on average: none is never picked
        assert_true(hits[r] > 40);
    assert_int_equal(lab_pick_reps(1, 2, out), 1);
    assert_int_equal(out[0], 0);
    assert_int_equal(lab_pick_reps(0, 2, out), 0);
}

// In a child: calloc_count 0 asks lab_xmalloc for half the address space, else lab_xcalloc
// for calloc_count elements of 4 bytes. It must say so on stderr and abort.
static void aborts_out_of_memory(size_t calloc_count)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        if (calloc_count)
            lab_xcalloc(calloc_count, 4);
        else
            lab_xmalloc((size_t)-1 / 2);
        _exit(0);
    }
    close(fds[1]);
    char buf[256] = "";
    ssize_t got = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(got > 0);
    assert_non_null(strstr(buf, "error: out of host memory"));
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT); // a crash, not exit 3
}

static void out_of_memory_says_so_and_aborts(void **state)
{
    (void)state;
    aborts_out_of_memory(0);
    // a count whose product with the size wraps to 4 bytes: refused, not a 4-byte buffer
    aborts_out_of_memory(((size_t)1 << 62) + 1);
    void *p = lab_xcalloc(4, 8);
    assert_memory_equal(p, (char[32]){0}, 32);
    free(p);
    // a large one is zero throughout (fresh pages, not a memset)
    unsigned char *big = lab_xcalloc((size_t)16 << 20, 1);
    size_t nonzero = 0;
    for (size_t i = 0; i < ((size_t)16 << 20); i += 4093)
        nonzero += big[i] != 0;
    assert_int_equal(nonzero, 0);
    free(big);
    assert_true(lab_fresh_key() != lab_fresh_key());
}

// A timed call's outputs are copied out on every core: byte for byte memcpy's copy, at sizes
// below, at and around the chunk, and not a multiple of it.
static void parallel_copy_is_memcpy(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 4093, 4u << 20, (4u << 20) + 1, (3u << 22) + 12345};
    const size_t most = (3u << 22) + 12345;
    unsigned char *src = malloc(most), *dst = malloc(most + 1);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < most; i++)
        src[i] = (unsigned char)(i * 2654435761u >> 13);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        memset(dst, 0xA5, most + 1);
        lab_parallel_memcpy(dst, src, sizes[k]);
        if (sizes[k])
            assert_memory_equal(dst, src, sizes[k]);
        assert_int_equal(dst[sizes[k]], 0xA5); // not a byte past the end
    }
    free(src);
    free(dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parallel_copy_is_memcpy),
        cmocka_unit_test(rep_zero_keeps_the_seed_and_others_differ),
        cmocka_unit_test(picks_are_distinct_sorted_in_range),
        cmocka_unit_test(out_of_memory_says_so_and_aborts),
    };
    return cmocka_run_group_tests_name("lab repetitions", tests, NULL, NULL);
}

/* The witness (grader/engine/grade/witness.h): the CPU hash of dump files against a commitment, and
 * the rule that confirms or doubts a reported time. */
#include "cmocka_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_witness.h"
#include "witness.h"

/* A dump file as common/dump.c writes it: a header line, then the raw bytes. */
static void write_dump(const char *dir, const char *buf, int rep, const void *p, size_t bytes)
{
    char path[512];
    snprintf(path, sizeof path, "%s/speed.rep%d.%s.bin", dir, rep, buf);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "LABDUMP 2 task=t case=speed rep=%d buffer=%s seed=1 type=f32 count=%zu\n", rep,
            buf, bytes / 4);
    assert_int_equal(fwrite(p, 1, bytes, f), bytes);
    assert_int_equal(fclose(f), 0);
}

static void dumps_match_the_commitment_only_when_unchanged(void **state)
{
    (void)state;
    char dir[] = "/tmp/witness.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const uint64_t key = 0x9876543210fedcbaull;
    /* more than one chunk and a tail, so the chunked file read is held to the one-pass hash */
    const size_t bytes = LAB_WITNESS_CHUNK_WORDS * 4 * 2 + 4 * 17 + 3;
    unsigned char *a = malloc(bytes), *b = malloc(64);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < bytes; i++)
        a[i] = (unsigned char)(i * 131 + 7);
    for (size_t i = 0; i < 64; i++)
        b[i] = (unsigned char)i;
    write_dump(dir, "out", 3, a, bytes);
    write_dump(dir, "aux", 3, b, 64);
    /* the buffers chained in the order of their names: aux, then out */
    uint64_t rep = lab_witness_rep_add(lab_witness_rep_add(lab_witness_rep_begin(key),
                                                           lab_witness_hash(b, 64, key)),
                                       lab_witness_hash(a, bytes, key));
    uint64_t hash[5] = {0, 0, 0, rep, 0};
    struct gate_witness w = {.key = key, .committed = 1, .reps = 5, .hash = hash,
                             .picks = {3}, .n_picks = 1};
    char why[400];
    assert_int_equal(witness_check_dump(dir, "speed", &w, why, sizeof why), 0);
    /* one bit of one element changed after done: caught */
    a[bytes / 2] ^= 1;
    write_dump(dir, "out", 3, a, bytes);
    assert_int_equal(witness_check_dump(dir, "speed", &w, why, sizeof why), -1);
    assert_non_null(strstr(why, "repetition 3"));
    /* a picked repetition not dumped, and no commitment at all */
    w.picks[0] = 1;
    assert_int_equal(witness_check_dump(dir, "speed", &w, why, sizeof why), -1);
    w.committed = 0;
    assert_int_equal(witness_check_dump(dir, "speed", &w, why, sizeof why), -1);
    assert_non_null(strstr(why, "commitment"));
    /* a different key gives a different hash */
    assert_true(lab_witness_hash(b, 64, key) != lab_witness_hash(b, 64, key + 1));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    free(a);
    free(b);
}

static void the_rule_confirms_honest_times_and_doubts_forged_ones(void **state)
{
    (void)state;
    /* calls of 50 ms, 5 ms of harness work each, 12 calls: the reference's window 0.66 s */
    struct witness_in in = {.w_ref_s = 0.66, .calls = 12, .calls_ref = 12, .ref_ms = 50,
                            .threshold = 1.0};
    struct witness_out out;
    /* an honest student as fast as the reference, a little noise in its window */
    in.w_s = 0.68;
    in.student_ms = 50;
    assert_int_equal(witness_confirm(&in, &out), WITNESS_CONFIRMED);
    assert_true(out.t_conf_ms > 51 && out.t_conf_ms < 52);
    /* a student twice as slow that reports the reference's time: doubted, both figures said */
    in.w_s = 0.66 + 12 * 0.050;
    assert_int_equal(witness_confirm(&in, &out), WITNESS_DOUBTED);
    assert_non_null(strstr(out.why, "50 ms"));
    assert_non_null(strstr(out.why, "100 ms"));
    /* 1.5 times as slow, reporting the reference's time: doubted as well */
    in.w_s = 0.66 + 12 * 0.025;
    assert_int_equal(witness_confirm(&in, &out), WITNESS_DOUBTED);
    /* the same slow student reporting its honest time: too slow, nothing to confirm */
    in.student_ms = 100;
    in.w_s = 0.66 + 12 * 0.050;
    assert_int_equal(witness_confirm(&in, &out), WITNESS_UNKNOWN);
    /* a window of other calls than the reference's */
    in.student_ms = 50;
    in.calls = 6;
    assert_int_equal(witness_confirm(&in, &out), WITNESS_DOUBTED);
    /* no window: nothing to say */
    in.calls = 12;
    in.w_ref_s = -1;
    assert_int_equal(witness_confirm(&in, &out), WITNESS_UNKNOWN);
    /* calls of microseconds: the windows' slack covers them, an honest one is confirmed */
    struct witness_in tiny = {.w_s = 0.030, .w_ref_s = 0.020, .calls = 12, .calls_ref = 12,
                              .ref_ms = 0.03, .student_ms = 0.03, .threshold = 1.0};
    assert_int_equal(witness_confirm(&tiny, &out), WITNESS_CONFIRMED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dumps_match_the_commitment_only_when_unchanged),
        cmocka_unit_test(the_rule_confirms_honest_times_and_doubts_forged_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

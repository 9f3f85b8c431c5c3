/* SHA-256 against the FIPS 180-4 vectors, and tree hashes: what changes them, what does not. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"

static void test_sha256_vectors(void **state)
{
    (void)state;
    char hex[HASH_HEX_LEN + 1];
    hash_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hash_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hash_sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256_incremental(void **state)
{
    (void)state;
    /* a million 'a' fed in uneven pieces crosses every block boundary case */
    hash_sha256 s;
    hash_sha256_init(&s);
    char a[997];
    memset(a, 'a', sizeof a);
    size_t left = 1000000;
    while (left > 0) {
        size_t n = left < sizeof a ? left : sizeof a;
        hash_sha256_update(&s, a, n);
        left -= n;
    }
    char hex[HASH_HEX_LEN + 1];
    hash_sha256_final(&s, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void tree_hex(const char *label, const char *path, char *hex)
{
    hash_sha256 s;
    hash_sha256_init(&s);
    assert_int_equal(hash_tree(&s, label, path), 0);
    hash_sha256_final(&s, hex);
}

static void test_tree(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_class_hash.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[512], h0[65], h1[65], h2[65], h3[65], h4[65], h5[65];
    snprintf(p, sizeof p, "%s/absent", dir);
    tree_hex("x", p, h0);
    snprintf(p, sizeof p, "%s/L", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/L/a.cu", dir);
    write_file(p, "kernel one");
    tree_hex("x", dir, h1);
    tree_hex("x", dir, h2);
    assert_string_equal(h1, h2);          /* deterministic */
    assert_string_not_equal(h0, h1);
    tree_hex("y", dir, h3);
    assert_string_not_equal(h1, h3);      /* the label counts */
    write_file(p, "kernel two");
    tree_hex("x", dir, h4);
    assert_string_not_equal(h1, h4);      /* an edit counts */
    char q[512];
    snprintf(q, sizeof q, "%s/L/b.cu", dir);
    assert_int_equal(rename(p, q), 0);
    tree_hex("x", dir, h5);
    assert_string_not_equal(h4, h5);      /* a rename counts */
    unlink(q);
    snprintf(p, sizeof p, "%s/L", dir);
    rmdir(p);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_sha256_incremental),
        cmocka_unit_test(test_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

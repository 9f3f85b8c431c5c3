/* hash.c — SHA-256 and tree hashes: see hash.h. */
#include "hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- SHA-256 */
static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_block(hash_sha256 *s, const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      sha256_k[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
    s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

void hash_sha256_init(hash_sha256 *s)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, iv, sizeof iv);
    s->bytes = 0;
    s->fill = 0;
}

void hash_sha256_update(hash_sha256 *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    s->bytes += len;
    while (len > 0) {
        size_t take = 64 - s->fill < len ? 64 - s->fill : len;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
        if (s->fill == 64) {
            sha256_block(s, s->block);
            s->fill = 0;
        }
    }
}

void hash_sha256_final(hash_sha256 *s, char *hex)
{
    uint64_t bits = s->bytes * 8;
    uint8_t pad[72] = { 0x80 };
    /* pad to 56 mod 64, then the 64-bit big-endian length: the block always ends whole */
    size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++)
        pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
    hash_sha256_update(s, pad, padlen + 8);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
}

void hash_sha256_hex(const void *data, size_t len, char *hex)
{
    hash_sha256 s;
    hash_sha256_init(&s);
    hash_sha256_update(&s, data, len);
    hash_sha256_final(&s, hex);
}

/* ---------------------------------------------------------------- trees */
/* Every field is length-prefixed, so no two different trees feed the same byte stream. */
static void hash_field(hash_sha256 *s, const void *data, size_t len)
{
    uint64_t n = len;
    hash_sha256_update(s, &n, sizeof n);
    hash_sha256_update(s, data, len);
}

static int hash_file(hash_sha256 *s, const char *path, off_t size)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    uint64_t n = (uint64_t)size;
    hash_sha256_update(s, &n, sizeof n);
    char buf[65536];
    off_t left = size;
    while (left > 0) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            /* the file shrank while being read: the digest must not describe it */
            close(fd);
            errno = got < 0 ? errno : EIO;
            return -1;
        }
        hash_sha256_update(s, buf, (size_t)(got < left ? got : left));
        left -= got;
    }
    close(fd);
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int hash_entry(hash_sha256 *s, const char *full, const char *rel);

static int hash_dir(hash_sha256 *s, const char *full, const char *rel)
{
    DIR *d = opendir(full);
    if (!d)
        return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) { rc = -1; break; }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name))) { rc = -1; break; }
        n++;
    }
    closedir(d);
    if (rc == 0)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *cfull = NULL, *crel = NULL;
        if (asprintf(&cfull, "%s/%s", full, names[i]) < 0 ||
            asprintf(&crel, "%s%s%s", rel, rel[0] ? "/" : "", names[i]) < 0)
            rc = -1;
        else
            rc = hash_entry(s, cfull, crel);
        free(cfull);
        free(crel);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int hash_entry(hash_sha256 *s, const char *full, const char *rel)
{
    struct stat st;
    if (lstat(full, &st) != 0)
        return -1;
    if (S_ISDIR(st.st_mode)) {
        hash_field(s, "D", 1);
        hash_field(s, rel, strlen(rel));
        return hash_dir(s, full, rel);
    }
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t len = readlink(full, target, sizeof target);
        if (len < 0)
            return -1;
        hash_field(s, "L", 1);
        hash_field(s, rel, strlen(rel));
        hash_field(s, target, (size_t)len);
        return 0;
    }
    if (S_ISREG(st.st_mode)) {
        hash_field(s, "F", 1);
        hash_field(s, rel, strlen(rel));
        return hash_file(s, full, st.st_size);
    }
    /* fifos, sockets, devices: their presence is hashed, never their content */
    hash_field(s, "O", 1);
    hash_field(s, rel, strlen(rel));
    return 0;
}

int hash_tree(hash_sha256 *s, const char *label, const char *path)
{
    struct stat st;
    hash_field(s, label, strlen(label));
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return -1;
        hash_field(s, "absent", 6);
        return 0;
    }
    return hash_entry(s, path, "");
}

int hash_file_hex(const char *path, char hex[HASH_HEX_LEN + 1])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    hash_sha256 s;
    hash_sha256_init(&s);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        hash_sha256_update(&s, buf, n);
    int err = ferror(f);
    fclose(f);
    if (err)
        return -1;
    hash_sha256_final(&s, hex);
    return 0;
}

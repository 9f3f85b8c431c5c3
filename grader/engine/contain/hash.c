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
void hash_sha256_init(hash_sha256 *s)
{
    sha256_init(&s->ctx);
}

void hash_sha256_update(hash_sha256 *s, const void *data, size_t len)
{
    sha256_update(&s->ctx, len, data);
}

void hash_sha256_final(hash_sha256 *s, char *hex)
{
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&s->ctx, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
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

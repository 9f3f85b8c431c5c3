/* hash.h — content hashes for resumable class grading.
 *
 * SHA-256 (Nettle's, Debian's nettle-dev), and a tree hash over the files under a set of paths:
 * a student is regraded only when the hash of their files and of the course's files differs
 * from the one stored with their last result. */
#ifndef GRADER_HASH_H
#define GRADER_HASH_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/sha2.h>

typedef struct hash_sha256 {
    struct sha256_ctx ctx;
} hash_sha256;

#define HASH_HEX_LEN 64   /* hex digits of a digest, without the NUL */

void hash_sha256_init(hash_sha256 *s);
void hash_sha256_update(hash_sha256 *s, const void *data, size_t len);
/* Finishes the digest; hex must hold HASH_HEX_LEN + 1 bytes. */
void hash_sha256_final(hash_sha256 *s, char *hex);
/* One-shot digest of a buffer. */
void hash_sha256_hex(const void *data, size_t len, char *hex);

/* Content hash of one file (SHA-256, hex); -1 when unreadable (errno set). */
int hash_file_hex(const char *path, char hex[HASH_HEX_LEN + 1]);

/* Adds every regular file and symbolic link under `path` (a file or a directory, recursed in
 * byte order of names, links never followed) to s: each as its path relative to `path`, its
 * kind and its bytes, so that renaming, moving or editing any file changes the digest.
 * `label` is hashed first, so the same tree under two roles hashes differently. A missing
 * path hashes as "absent". Returns 0, or -1 when something could not be read (errno set). */
int hash_tree(hash_sha256 *s, const char *label, const char *path);

#endif /* GRADER_HASH_H */

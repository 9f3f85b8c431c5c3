// Dumps: a case's outputs written by the process that ran the code under test, read back by
// a verifier that runs none of it. One text header line, then the raw elements.
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

size_t lab_dtype_size(lab_dtype t)
{
    static const size_t sizes[] = {4, 8, 4, 4, 1};
    return t <= LAB_U8 ? sizes[t] : 0;
}

const char *lab_dtype_name(lab_dtype t)
{
    static const char *const names[] = {"f32", "f64", "i32", "u32", "u8"};
    return t <= LAB_U8 ? names[t] : "?";
}

/* The first line of a repetition the harness refused to dump, and why (lab_dump_write_void). */
#define VOID_TAG "LABVOID "

static void dump_path(char *path, size_t len, const char *dir, const char *case_name, int rep,
                      const char *buf)
{
    snprintf(path, len, "%s/%s.rep%d.%s.bin", dir, case_name, rep, buf);
}

static int header_line(char *line, size_t len, const char *task, const char *case_name, int rep,
                       uint64_t seed, const lab_buffer *b)
{
    return snprintf(line, len,
                    "LABDUMP 2 task=%s case=%s rep=%d buffer=%s seed=%" PRIu64 " type=%s count=%zu\n",
                    task, case_name, rep, b->name, seed, lab_dtype_name(b->type), b->count);
}

int lab_dump_exists(const char *dir, const char *case_name, int rep, const char *buffer)
{
    char path[4096];
    struct stat sb;
    if (buffer) {
        dump_path(path, sizeof path, dir, case_name, rep, buffer);
        return stat(path, &sb) == 0;
    }
    int n = snprintf(path, sizeof path, "%s.rep%d.", case_name, rep);
    DIR *d = opendir(dir);
    if (!d || n < 0 || (size_t)n >= sizeof path) {
        if (d)
            closedir(d);
        return 0;
    }
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        found = strncmp(e->d_name, path, (size_t)n) == 0 && len > (size_t)n + 4 &&
                strcmp(e->d_name + len - 4, ".bin") == 0;
    }
    closedir(d);
    return found;
}

int lab_dump_write(const char *dir, const char *task, const char *case_name, int rep,
                   uint64_t seed, const lab_buffer *b, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create dump directory %s: %s", dir, strerror(errno));
        return -1;
    }
    char path[4096], line[512];
    dump_path(path, sizeof path, dir, case_name, rep, b->name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int n = header_line(line, sizeof line, task, case_name, rep, seed, b);
    size_t bytes = lab_buffer_bytes(b);
    int ok = fwrite(line, 1, (size_t)n, f) == (size_t)n && fwrite(b->data, 1, bytes, f) == bytes;
    if (fclose(f) != 0 || !ok) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int lab_dump_write_void(const char *dir, const char *case_name, int rep, const char *buffer,
                        const char *why, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create dump directory %s: %s", dir, strerror(errno));
        return -1;
    }
    char path[4096];
    dump_path(path, sizeof path, dir, case_name, rep, buffer);
    FILE *f = fopen(path, "wb");
    int ok = f && fprintf(f, "%s%.400s\n", VOID_TAG, why) > 0;
    if (!f || fclose(f) != 0 || !ok) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int lab_dump_read(const char *dir, const char *task, const char *case_name, int rep,
                  uint64_t seed, const lab_buffer *b, char *err, size_t errlen)
{
    char path[4096], want[512], got[512];
    dump_path(path, sizeof path, dir, case_name, rep, b->name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "no output dumped for case %s, repetition %d (%s: %s)", case_name,
                 rep, path, strerror(errno));
        return -1;
    }
    header_line(want, sizeof want, task, case_name, rep, seed, b);
    int rc = -1;
    if (!fgets(got, sizeof got, f)) {
        snprintf(err, errlen, "%s: empty or unreadable dump", path);
    } else if (strncmp(got, VOID_TAG, strlen(VOID_TAG)) == 0) {
        got[strcspn(got, "\n")] = 0;
        snprintf(err, errlen, "%s", got + strlen(VOID_TAG));
    } else if (strcmp(got, want) != 0) {
        got[strcspn(got, "\n")] = 0;
        want[strcspn(want, "\n")] = 0;
        snprintf(err, errlen, "%s: header '%.200s' does not match the expected '%.200s'", path, got, want);
    } else {
        size_t bytes = lab_buffer_bytes(b);
        if (fread(b->data, 1, bytes, f) != bytes)
            snprintf(err, errlen, "%s: truncated (fewer than %zu elements)", path, b->count);
        else if (fgetc(f) != EOF)
            snprintf(err, errlen, "%s: more data than %zu elements", path, b->count);
        else
            rc = 0;
    }
    fclose(f);
    return rc;
}

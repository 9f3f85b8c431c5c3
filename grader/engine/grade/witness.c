/* witness.c — see witness.h. */
#include "witness.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_witness.h"
#include "util.h"

enum witness_verdict witness_confirm(const struct witness_in *in, struct witness_out *out)
{
    memset(out, 0, sizeof *out);
    if (in->w_s <= 0 || in->w_ref_s <= 0 || in->calls_ref <= 0 || in->ref_ms <= 0 ||
        in->student_ms <= 0)
        return WITNESS_UNKNOWN;
    if (in->calls != in->calls_ref) {
        snprintf(out->why, sizeof out->why, "its timed window held %d calls where the "
                 "reference's held %d", in->calls, in->calls_ref);
        return WITNESS_DOUBTED;
    }
    const double per_ref = in->w_ref_s * 1e3 / in->calls_ref;
    const double overhead = per_ref > in->ref_ms ? per_ref - in->ref_ms : 0;
    out->t_conf_ms = in->ref_ms + (in->w_s - in->w_ref_s) * 1e3 / in->calls;
    out->t_low_ms = out->t_conf_ms - WITNESS_OVERHEAD_SLACK * overhead -
                    WITNESS_WINDOW_SLACK_S * 1e3 / in->calls;
    if (out->t_low_ms < 0)
        out->t_low_ms = 0;
    if (in->ref_ms / in->student_ms < in->threshold)
        return WITNESS_UNKNOWN; /* too slow by its own report: nothing to confirm */
    const double low = out->t_low_ms * (1 - WITNESS_MARGIN);
    const int ratio_ok = out->t_low_ms <= 0 || in->ref_ms / out->t_low_ms >= in->threshold * (1 - WITNESS_MARGIN);
    if (ratio_ok && in->student_ms >= low)
        return WITNESS_CONFIRMED;
    snprintf(out->why, sizeof out->why, "it reported %.3g ms a call, but the grader's clock "
             "over its timed calls gives %.3g ms (at least %.3g ms; the reference: %.3g ms)",
             in->student_ms, out->t_conf_ms, out->t_low_ms, in->ref_ms);
    return WITNESS_DOUBTED;
}

/* One buffer's file: the header line skipped, the rest hashed a chunk at a time. */
static int hash_file(const char *path, uint64_t key, uint64_t *out, int *void_dump)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    int c, first = 1;
    char tag[8];
    size_t t = 0;
    while ((c = fgetc(f)) != EOF && c != '\n')
        if (first && t < sizeof tag)
            tag[t++] = (char)c;
    first = 0;
    *void_dump = t == sizeof tag && memcmp(tag, "LABVOID ", sizeof tag) == 0;
    if (c == EOF) {
        fclose(f);
        return -1;
    }
    long from = ftell(f);
    if (from < 0 || fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return -1;
    }
    size_t bytes = (size_t)(ftell(f) - from);
    fseek(f, from, SEEK_SET);
    static const size_t chunk_bytes = LAB_WITNESS_CHUNK_WORDS * 4;
    uint8_t *buf = malloc(chunk_bytes);
    if (!buf) {
        fclose(f);
        return -1;
    }
    const size_t n = bytes / 4, chunks = (n + LAB_WITNESS_CHUNK_WORDS - 1) / LAB_WITNESS_CHUNK_WORDS;
    uint64_t h = lab_witness_begin(key, bytes);
    int ok = 1;
    for (size_t k = 0; ok && k < chunks; k++) {
        size_t words = lab_witness_chunk_words(n, k);
        ok = fread(buf, 4, words, f) == words;
        if (ok)
            h = lab_witness_step(h, lab_witness_chunk_cpu(buf, words, k, key));
    }
    uint8_t tail[4];
    ok = ok && fread(tail, 1, bytes % 4, f) == bytes % 4;
    free(buf);
    fclose(f);
    if (!ok)
        return -1;
    *out = lab_witness_end(h, tail, bytes % 4);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Repetition rep's buffers in dir, hashed and chained in the order of their names. */
static int rep_hash(const char *dir, const char *case_name, int rep, uint64_t key, uint64_t *out,
                    int *void_dump)
{
    char prefix[512];
    int plen = snprintf(prefix, sizeof prefix, "%s.rep%d.", case_name, rep);
    DIR *d = opendir(dir);
    if (!d || plen < 0 || (size_t)plen >= sizeof prefix) {
        if (d)
            closedir(d);
        return -1;
    }
    char *names[64];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0 || len <= (size_t)plen + 4 ||
            strcmp(e->d_name + len - 4, ".bin") != 0 || n == sizeof names / sizeof *names)
            continue;
        names[n++] = xasprintf("%.*s", (int)(len - (size_t)plen - 4), e->d_name + plen); /* the buffer's */
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    uint64_t h = lab_witness_rep_begin(key);
    int rc = n > 0 ? 0 : -1;
    *void_dump = 0;
    for (size_t i = 0; i < n; i++) {
        char *path = xasprintf("%s/%s%s.bin", dir, prefix, names[i]);
        uint64_t b = 0;
        int v = 0;
        if (rc == 0 && hash_file(path, key, &b, &v) != 0)
            rc = -1;
        *void_dump |= v;
        h = lab_witness_rep_add(h, b);
        free(path);
        free(names[i]);
    }
    *out = h;
    return rc;
}

int witness_check_dump(const char *dir, const char *case_name, const struct gate_witness *w,
                       char *why, size_t len)
{
    if (!w->committed || !w->key || (w->reps > 0 && !w->hash)) {
        snprintf(why, len, "it said its timed calls were over without the commitment to their "
                 "outputs that the harness sends");
        return -1;
    }
    if (w->reps == 0 || w->n_picks == 0) {
        snprintf(why, len, "it committed to no timed call of case %s", case_name);
        return -1;
    }
    for (int i = 0; i < w->n_picks; i++) {
        int rep = w->picks[i], void_dump = 0;
        uint64_t h = 0;
        if (rep_hash(dir, case_name, rep, w->key, &h, &void_dump) != 0) {
            snprintf(why, len, "case %s, repetition %d: no readable dump of the repetition the "
                     "grader picked", case_name, rep);
            return -1;
        }
        if (h != w->hash[rep]) {
            snprintf(why, len, "case %s, repetition %d: the outputs dumped are not those it "
                     "committed to when it said its timed calls were over%s", case_name, rep,
                     void_dump ? "" : " (the work was not done by then)");
            return -1;
        }
    }
    return 0;
}

/* resume.c — hashes and seeds (class_int.h): a student's results carry the SHA-256 of their
 * files together with the course's files and the grading options (the "course key"); while
 * both are unchanged the student is not graded again, so an interrupted run resumes where it
 * stopped. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_int.h"
#include "gradebook.h"

/* The course key: everything that decides a grade besides the student's files. */
int course_key(const struct class_opts *o, char *hex)
{
    static const char *const parts[] = { "lessons", "common", "solutions", "Makefile" };
    hash_sha256 s;
    hash_sha256_init(&s);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *p = path_join(o->root, parts[i]);
        int rc = p ? hash_tree(&s, parts[i], p) : -1;
        free(p);
        if (rc != 0)
            return -1;
    }
    /* the grading engine itself: a fixed grader regrades */
    char *exe = realpath("/proc/self/exe", NULL);
    int rc = exe ? hash_tree(&s, "grader", exe) : -1;
    free(exe);
    if (rc != 0)
        return -1;
    char opts[256];
    snprintf(opts, sizeof opts, "seed=%" PRIu64 " sanitize=%d run_timeout=%g build_timeout=%g "
             "ncu_share=%g profile=%d", o->seed, o->sanitize, o->run_timeout, o->build_timeout,
             o->ncu_share, o->profile);
    hash_sha256_update(&s, opts, strlen(opts));
    hash_sha256_final(&s, hex);
    return 0;
}

int student_hash(const char *key, const char *class_dir, const char *name, char *hex)
{
    hash_sha256 s;
    hash_sha256_init(&s);
    hash_sha256_update(&s, key, strlen(key));
    char *ex = NULL;
    if (asprintf(&ex, "%s/%s/exercises", class_dir, name) < 0)
        return -1;
    int rc = hash_tree(&s, "exercises", ex);
    free(ex);
    if (rc != 0)
        return -1;
    hash_sha256_final(&s, hex);
    return 0;
}

/* Each student's inputs come from their own seed, so two students' outputs differ; the same
 * class seed and name always give the same seed, so a regrade is reproducible. */
uint64_t student_seed(uint64_t class_seed, const char *name)
{
    char text[64 + 256], hex[HASH_HEX_LEN + 1];
    snprintf(text, sizeof text, "%" PRIu64 "/%s", class_seed, name);
    hash_sha256_hex(text, strlen(text), hex);
    char first[17];
    memcpy(first, hex, 16);
    first[16] = 0;
    /* harnesses take seeds as decimal integers; 53 bits survive any JSON reader too */
    return strtoull(first, NULL, 16) >> 11;
}

char *results_path(const char *class_dir, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s/results.json", class_dir, name) < 0)
        return NULL;
    return p;
}

/* 1 when DIR/<name>/results.json was graded from exactly these files and this course. */
int results_fresh(const char *class_dir, const char *name, const char *hash)
{
    char *path = results_path(class_dir, name);
    struct gb_student s;
    char err[256];
    gb_student_init(&s, name);
    int fresh = path && gb_results_read(path, &s, err, sizeof err) == 0 &&
                strcmp(s.hash, hash) == 0;
    gb_student_free(&s);
    free(path);
    return fresh;
}

int hash_students(struct class_run *cr)
{
    cr->hashes = calloc(cr->roster.n + 1, sizeof *cr->hashes);
    if (!cr->hashes)
        return -1;
    for (size_t i = 0; i < cr->roster.n; i++) {
        char hex[HASH_HEX_LEN + 1];
        if (student_hash(cr->key, cr->o.dir, cr->roster.names[i], hex) != 0) {
            fprintf(stderr, "grader: %s: cannot read the student's files: %s\n",
                    cr->roster.names[i], strerror(errno));
            /* unreadable files never match a stored hash: the student is regraded */
            snprintf(hex, sizeof hex, "unreadable");
        }
        if (!(cr->hashes[i] = strdup(hex)))
            return -1;
    }
    return 0;
}

static int selected(const struct class_opts *o, const char *name)
{
    if (o->n_only == 0)
        return 1;
    for (size_t i = 0; i < o->n_only; i++)
        if (strcmp(o->only[i], name) == 0)
            return 1;
    return 0;
}

/* Indices of the students to grade: selected, and not fresh unless --force. */
size_t *stale_students(const struct class_run *cr, size_t *n)
{
    size_t *todo = calloc(cr->roster.n + 1, sizeof *todo);
    *n = 0;
    for (size_t i = 0; todo && i < cr->roster.n; i++) {
        const char *name = cr->roster.names[i];
        if (!selected(&cr->o, name))
            continue;
        if (!cr->o.force && results_fresh(cr->o.dir, name, cr->hashes[i]))
            continue;
        todo[(*n)++] = i;
    }
    return todo;
}

size_t count_fresh(const struct class_run *cr)
{
    size_t n = 0;
    for (size_t i = 0; i < cr->roster.n; i++)
        n += results_fresh(cr->o.dir, cr->roster.names[i], cr->hashes[i]);
    return n;
}

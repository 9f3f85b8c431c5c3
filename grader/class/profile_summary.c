/* profile_summary.c — `grader class --profile`: what the profile digests of a class say, per
 * task, in lines an instructor reads ("03-naive-matmul/matmul_naive: 14 of 40 uncoalesced,
 * 20 close to the reference; 9 below half the reference's achieved occupancy"), from every
 * student's results.json (its tests' extra_data.result.profile, gradescope.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "class_int.h"
#include "fs.h"

struct key_count {
    char *key;
    size_t n;
};

struct task_tally {
    char *task;
    size_t profiled, low_occupancy;
    struct key_count *keys;
    size_t n_keys;
};

static struct task_tally *tally_of(struct task_tally **t, size_t *n, const char *task)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*t)[i].task, task) == 0)
            return &(*t)[i];
    *t = xrealloc(*t, (*n + 1) * sizeof **t);
    struct task_tally *x = &(*t)[(*n)++];
    memset(x, 0, sizeof *x);
    x->task = xstrdup(task);
    return x;
}

static void count_key(struct task_tally *x, const char *key)
{
    for (size_t i = 0; i < x->n_keys; i++)
        if (strcmp(x->keys[i].key, key) == 0) {
            x->keys[i].n++;
            return;
        }
    x->keys = xrealloc(x->keys, (x->n_keys + 1) * sizeof *x->keys);
    x->keys[x->n_keys++] = (struct key_count){xstrdup(key), 1};
}

static double number_at(const cJSON *o, const char *side, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, side), key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* One student's results.json into the tallies. */
static void tally_student(const char *text, struct task_tally **t, size_t *n)
{
    cJSON *doc = cJSON_Parse(text);
    const cJSON *test;
    cJSON_ArrayForEach(test, cJSON_GetObjectItemCaseSensitive(doc, "tests"))
    {
        const cJSON *extra = cJSON_GetObjectItemCaseSensitive(test, "extra_data");
        const cJSON *task = cJSON_GetObjectItemCaseSensitive(extra, "task");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(extra, "result"), "profile");
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(p, "finding"), "key");
        if (!cJSON_IsString(task) || !cJSON_IsString(key))
            continue;
        struct task_tally *x = tally_of(t, n, task->valuestring);
        x->profiled++;
        count_key(x, key->valuestring);
        double mine = number_at(p, "student", "occupancy_achieved");
        double ref = number_at(p, "reference", "occupancy_achieved");
        x->low_occupancy += mine >= 0 && ref > 0 && mine < 0.5 * ref;
    }
    cJSON_Delete(doc);
}

static int by_count(const void *a, const void *b)
{
    const struct key_count *x = a, *y = b;
    return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->key, y->key);
}

void class_profile_summary(const char *dir, const struct roster *r, FILE *out)
{
    struct task_tally *t = NULL;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        char *path = xasprintf("%s/%s/results.json", dir, r->names[i]);
        char *text = read_text_file(path, (size_t)64 << 20);
        if (text)
            tally_student(text, &t, &n);
        free(text);
        free(path);
    }
    fprintf(out, "profile: %s\n", n ? "the digests' findings per task" : "no task was profiled");
    for (size_t i = 0; i < n; i++) {
        qsort(t[i].keys, t[i].n_keys, sizeof *t[i].keys, by_count);
        fprintf(out, "  %s:", t[i].task);
        for (size_t k = 0; k < t[i].n_keys; k++)
            fprintf(out, "%s %zu of %zu %s", k ? "," : "", t[i].keys[k].n, t[i].profiled,
                    t[i].keys[k].key);
        if (t[i].low_occupancy)
            fprintf(out, "; %zu below half the reference's achieved occupancy", t[i].low_occupancy);
        fputs("\n", out);
        for (size_t k = 0; k < t[i].n_keys; k++)
            free(t[i].keys[k].key);
        free(t[i].keys);
        free(t[i].task);
    }
    free(t);
}

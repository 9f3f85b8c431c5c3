/* state.c — saved progress (state.h): {"format": 1, "tasks": {"L/T": {"hash": ..., "result": {...}}}} */
#include "state.h"
#include "hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "model_impl.h"
#include "parse.h"
#include "result_json.h"

#define STATE_MAX ((size_t)64 << 20)

struct grader_state {
    cJSON *tasks; /* object: task id -> {"hash", "result"} */
};

char *state_default_path(const char *root)
{
    return xasprintf("%s/.grader/state.json", root);
}

/* A file that is there but is no state moves aside, so that the next save does not destroy
 * what may be the only copy of a student's progress; *note says where it went. */
static void keep_aside(const char *path, const char *why, char **note)
{
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    char *aside = xasprintf("%s.corrupt-%s", path, stamp);
    if (rename(path, aside) == 0)
        *note = xasprintf("saved progress %s %s: kept as %s; progress starts afresh", path, why,
                          aside);
    else
        *note = xasprintf("saved progress %s %s, and cannot be kept aside (%s): it will be "
                          "written over", path, why, strerror(errno));
    free(aside);
}

struct grader_state *state_load(const char *path, char **note)
{
    struct grader_state *s = xcalloc(1, sizeof *s);
    *note = NULL;
    char *text = path ? read_text_file(path, STATE_MAX) : NULL;
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    cJSON *tasks = doc ? cJSON_GetObjectItemCaseSensitive(doc, "tasks") : NULL;
    if (cJSON_IsObject(tasks))
        s->tasks = cJSON_DetachItemViaPointer(doc, tasks);
    else
        s->tasks = cJSON_CreateObject();
    if (text && !cJSON_IsObject(tasks))
        keep_aside(path, doc ? "holds no tasks" : "is not valid JSON", note);
    free(text);
    cJSON_Delete(doc);
    return s;
}

static int mkdir_parent(const char *path)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = 0;
        rc = mkdir_p(dir);
    }
    free(dir);
    return rc;
}

int state_save(const struct grader_state *s, const char *path)
{
    if (mkdir_parent(path) != 0)
        return -1;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "format", 1);
    cJSON_AddItemReferenceToObject(doc, "tasks", s->tasks);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text)
        return -1;
    int rc = write_atomic(path, text, strlen(text));
    cJSON_free(text);
    return rc;
}

void state_free(struct grader_state *s)
{
    if (!s)
        return;
    cJSON_Delete(s->tasks);
    free(s);
}

void state_record(struct grader_state *s, const struct task *t)
{
    const struct task_result *r = task_result(t);
    if (!r)
        return;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "hash", result_exercise_hash(r));
    cJSON_AddItemToObject(e, "result", result_to_json(r));
    if (cJSON_GetObjectItemCaseSensitive(s->tasks, task_id(t)))
        cJSON_ReplaceItemInObjectCaseSensitive(s->tasks, task_id(t), e);
    else
        cJSON_AddItemToObject(s->tasks, task_id(t), e);
}

static const cJSON *fresh_entry(const struct grader_state *s, const struct task *t)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(s->tasks, task_id(t));
    const cJSON *h = e ? cJSON_GetObjectItemCaseSensitive(e, "hash") : NULL;
    char now[HASH_HEX_LEN + 1];
    if (!cJSON_IsString(h) || !h->valuestring[0] ||
        hash_file_hex(task_exercise_path(t), now) != 0 || strcmp(now, h->valuestring) != 0)
        return NULL;
    return e;
}

int state_is_fresh(const struct grader_state *s, const struct task *t)
{
    return fresh_entry(s, t) != NULL;
}

size_t state_apply(const struct grader_state *s, struct course *c)
{
    size_t n = 0;
    for (size_t i = 0; i < course_task_count(c); i++) {
        struct task *t = course_task_mut(c, i);
        const cJSON *e = fresh_entry(s, t);
        struct task_result *r = e ? result_from_json(
                                        cJSON_GetObjectItemCaseSensitive(e, "result")) : NULL;
        if (r) {
            task_set_result(t, r);
            n++;
        }
    }
    return n;
}

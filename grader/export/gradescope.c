/* gradescope.c — Gradescope's results.json, for `--batch --format gradescope` and for each
 * student of a class (gradebook.h): one mapping from results to tests, one renderer. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "formats.h"
#include "fs.h"
#include "gradebook.h"
#include "result_json.h"
#include "util.h"

void gb_student_add_result(struct gb_student *s, const struct task *t,
                           const struct task_result *r)
{
    struct strbuf b = {0};
    char *story = task_story(r);
    sb_puts(&b, story);
    free(story);
    cJSON *detail = r ? result_to_json(r) : NULL, *profile = r ? profile_task_json(t, r) : NULL;
    if (profile) {
        profile_task_text(t, r, "", &b);
        cJSON_AddItemToObject(detail, "profile", profile);
    }
    story = sb_take(&b);
    gb_student_add_task(s, task_id(t), task_title(t), r ? result_score(r) : 0,
                        r ? result_max_score(r) : task_weight(t),
                        outcome_key(r ? result_outcome(r) : OUTCOME_NOT_RUN), story, detail);
    free(story);
}

/* --batch: the course's graded tasks as one student with no name. */
static void course_student(const struct course *c, int only_graded, struct gb_student *s)
{
    int first = 1;
    /* the grading's wall time, from the first task's start to the last one's end (a task's
     * span is its own working time and its waits): tasks graded side by side (-j) overlap, so
     * the sum of their durations would count that time again */
    double began = 0, ended = 0;
    s->seed_known = 1;
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!report_included(t, only_graded))
            continue;
        const struct task_result *r = task_result(t);
        gb_student_add_result(s, t, r);
        if (!r)
            continue;
        double start = (double)result_graded_at(r), end = start + result_duration_s(r) + result_wait_s(r);
        began = first || start < began ? start : began;
        ended = first || end > ended ? end : ended;
        if (result_graded_at(r) > s->graded_at)
            s->graded_at = result_graded_at(r);
        if (!first && result_seed(r) != s->seed)
            s->seed_known = 0;
        s->seed = result_seed(r);
        first = 0;
    }
    s->seed_known &= !first;
    s->execution_time = first ? 0 : ended - began;
    /* a lesson whose lesson.ini did not load has no tasks: one test, worth nothing, says why */
    for (size_t i = 0; i < course_lesson_count(c); i++) {
        const struct lesson *l = course_lesson(c, i);
        if (!lesson_error(l))
            continue;
        char *id = xasprintf("%s/lesson.ini", lesson_id(l));
        char *why = xasprintf("%s: %s\n", outcome_name(OUTCOME_NOT_RUN), lesson_error(l));
        gb_student_add_task(s, id, "lesson.ini", 0, 0, outcome_key(OUTCOME_NOT_RUN), why, NULL);
        free(why);
        free(id);
    }
}

void gradescope_course(const struct course *c, int only_graded, struct strbuf *b)
{
    struct gb_student s;
    gb_student_init(&s, "");
    course_student(c, only_graded, &s);
    char *text = gb_results_to_json(&s);
    sb_puts(b, text);
    sb_puts(b, "\n");
    free(text);
    gb_student_free(&s);
}

static void add_extra(cJSON *root, const struct gb_student *s)
{
    cJSON *extra = cJSON_AddObjectToObject(root, "extra_data");
    if (s->name[0])
        cJSON_AddStringToObject(extra, "student", s->name);
    if (s->hash[0])
        cJSON_AddStringToObject(extra, "content_hash", s->hash);
    if (s->seed_known) {
        /* a string: JSON numbers lose 64-bit seeds above 2^53 */
        char seed[24];
        snprintf(seed, sizeof seed, "%" PRIu64, s->seed);
        cJSON_AddStringToObject(extra, "seed", seed);
    }
    cJSON_AddNumberToObject(extra, "graded_at", (double)s->graded_at);
}

static cJSON *test_json(const struct gb_task *t, size_t number)
{
    cJSON *j = cJSON_CreateObject();
    char *name = xasprintf("%s: %s", t->id, t->title), *num = xasprintf("%zu", number);
    cJSON_AddStringToObject(j, "name", name);
    cJSON_AddStringToObject(j, "number", num);
    free(name);
    free(num);
    cJSON_AddNumberToObject(j, "score", t->score);
    cJSON_AddNumberToObject(j, "max_score", t->max_score);
    cJSON_AddStringToObject(j, "status", strcmp(t->outcome, "passed") == 0 ? "passed" : "failed");
    cJSON_AddStringToObject(j, "output", t->output);
    cJSON_AddStringToObject(j, "visibility", "visible");
    cJSON *tx = cJSON_AddObjectToObject(j, "extra_data");
    cJSON_AddStringToObject(tx, "task", t->id);
    cJSON_AddStringToObject(tx, "title", t->title);
    cJSON_AddStringToObject(tx, "outcome", t->outcome);
    if (t->detail)
        cJSON_AddItemToObject(tx, "result", cJSON_Duplicate(t->detail, 1));
    return j;
}

char *gb_results_to_json(const struct gb_student *s)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "score", gb_student_score(s));
    cJSON_AddNumberToObject(root, "execution_time", s->execution_time);
    size_t passed = 0;
    for (size_t i = 0; i < s->n_tasks; i++)
        passed += strcmp(s->tasks[i].outcome, "passed") == 0;
    char *summary = xasprintf("%zu of %zu tasks passed; %g of %g points", passed, s->n_tasks,
                              gb_student_score(s), gb_student_max(s));
    cJSON_AddStringToObject(root, "output", summary);
    free(summary);
    cJSON_AddStringToObject(root, "visibility", "visible");
    cJSON_AddStringToObject(root, "stdout_visibility", "hidden");
    add_extra(root, s);
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    for (size_t i = 0; i < s->n_tasks; i++)
        cJSON_AddItemToArray(tests, test_json(&s->tasks[i], i + 1));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    struct strbuf b = { 0 };
    sb_puts(&b, text ? text : "");
    cJSON_free(text);
    return wb_take(&b);
}

static const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int json_num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        return -1;
    *out = v->valuedouble;
    return 0;
}

static void header_from_json(const cJSON *root, const cJSON *extra, struct gb_student *s)
{
    const char *name = json_str(extra, "student"), *hash = json_str(extra, "content_hash");
    const char *seed = json_str(extra, "seed");
    if (name)
        set_str(&s->name, name);
    set_str(&s->hash, hash ? hash : "");
    s->seed_known = seed != NULL;
    s->seed = seed ? strtoull(seed, NULL, 10) : 0;
    double v;
    s->execution_time = json_num(root, "execution_time", &v) == 0 ? v : 0;
    s->graded_at = json_num(extra, "graded_at", &v) == 0 ? (int64_t)v : 0;
}

int gb_results_from_json(const char *text, struct gb_student *s, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(text);
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(root, "extra_data");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(root, "tests"), *j;
    int rc = -1;
    if (!cJSON_IsObject(root))
        snprintf(err, errlen, "not a JSON object");
    else if (!cJSON_IsObject(extra) || !cJSON_IsArray(tests))
        snprintf(err, errlen, "no extra_data object or tests array");
    else
        rc = 0;
    if (rc == 0)
        header_from_json(root, extra, s);
    const cJSON *each = rc == 0 ? tests : NULL;
    cJSON_ArrayForEach(j, each) {
        const cJSON *tx = cJSON_GetObjectItemCaseSensitive(j, "extra_data");
        const char *id = json_str(tx, "task"), *outcome = json_str(tx, "outcome");
        double score, max_score;
        if (!id || !outcome || json_num(j, "score", &score) || json_num(j, "max_score", &max_score)) {
            snprintf(err, errlen, "test %d lacks task, outcome, score or max_score",
                     (int)s->n_tasks + 1);
            rc = -1;
            break;
        }
        const cJSON *detail = cJSON_GetObjectItemCaseSensitive(tx, "result");
        gb_student_add_task(s, id, json_str(tx, "title"), score, max_score, outcome,
                            json_str(j, "output"), detail ? cJSON_Duplicate(detail, 1) : NULL);
    }
    cJSON_Delete(root);
    return rc;
}

/* A results.json is read whole up to this size (a larger one is not one this grader wrote). */
#define RESULTS_MAX ((size_t)64 << 20)

int gb_results_write(const char *path, const struct gb_student *s)
{
    char *text = gb_results_to_json(s);
    int rc = write_atomic(path, text, strlen(text));
    int saved = errno;
    free(text);
    errno = saved;
    return rc;
}

int gb_results_read(const char *path, struct gb_student *s, char *err, size_t errlen)
{
    char *text = read_text_file(path, RESULTS_MAX);
    if (!text) {
        int saved = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        errno = saved;
        return -1;
    }
    int rc = gb_results_from_json(text, s, err, errlen);
    free(text);
    return rc;
}

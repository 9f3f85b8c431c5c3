/* json.c — the JSON report: the engine's own record of every task (result_json.h) under the
 * course's totals (formats.h; fields in grader/README.md). */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "formats.h"
#include "result_json.h"

static int all_passed(const struct course *c, int only_graded)
{
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        enum grader_outcome o = task_outcome(t);
        if (report_included(t, only_graded) && o != OUTCOME_PASSED && o != OUTCOME_SKIPPED)
            return 0;
    }
    return 1;
}

void json_course(const struct course *c, int only_graded, struct wbuf *b)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "format", 1);
    cJSON_AddStringToObject(doc, "root", course_root(c));
    double score = 0, max = 0;
    cJSON *tasks = cJSON_CreateArray();
    cJSON *counts = cJSON_CreateObject();
    size_t n[OUTCOME_COUNT] = {0};
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!report_included(t, only_graded))
            continue;
        const struct task_result *r = task_result(t);
        score += r ? result_score(r) : 0;
        max += r ? result_max_score(r) : task_weight(t);
        n[task_outcome(t)]++;
        cJSON_AddItemToArray(tasks, task_to_json(t));
    }
    for (int o = 0; o < OUTCOME_COUNT; o++)
        cJSON_AddNumberToObject(counts, outcome_key((enum grader_outcome)o), (double)n[o]);
    cJSON_AddNumberToObject(doc, "score", score);
    cJSON_AddNumberToObject(doc, "max_score", max);
    cJSON_AddBoolToObject(doc, "all_passed", all_passed(c, only_graded));
    cJSON_AddItemToObject(doc, "counts", counts);
    cJSON *errors = cJSON_AddArrayToObject(doc, "errors");
    for (size_t i = 0; i < course_error_count(c); i++)
        cJSON_AddItemToArray(errors, cJSON_CreateString(course_error(c, i)));
    cJSON_AddItemToObject(doc, "tasks", tasks);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    wb_puts(b, text ? text : "null");
    wb_puts(b, "\n");
    cJSON_free(text);
}

/* json.c — the JSON report: the engine's own record of every task (result_json.h) under the
 * course's totals (formats.h; fields in grader/README.md). */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "collect.h"
#include "formats.h"
#include "result_json.h"

void json_course(const struct course *c, int only_graded, struct strbuf *b)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "format", 1);
    cJSON_AddStringToObject(doc, "root", course_root(c));
    struct report_totals tot;
    report_totals(c, only_graded, &tot);
    cJSON *tasks = cJSON_CreateArray();
    for (size_t i = 0; i < course_task_count(c); i++)
        if (report_included(course_task(c, i), only_graded)) {
            const struct task *t = course_task(c, i);
            cJSON *tj = task_to_json(t), *profile = profile_task_json(t, task_result(t));
            if (profile)
                cJSON_AddItemToObject(tj, "profile", profile);
            cJSON_AddItemToArray(tasks, tj);
        }
    cJSON *counts = cJSON_CreateObject();
    for (int o = 0; o < OUTCOME_COUNT; o++)
        cJSON_AddNumberToObject(counts, outcome_key((enum grader_outcome)o), (double)tot.n[o]);
    cJSON_AddNumberToObject(doc, "score", tot.score);
    cJSON_AddNumberToObject(doc, "max_score", tot.max);
    /* skipped tasks count neither way, as in the exit status */
    cJSON_AddBoolToObject(doc, "all_passed",
                          tot.n[OUTCOME_PASSED] + tot.n[OUTCOME_SKIPPED] == tot.tasks);
    cJSON_AddItemToObject(doc, "counts", counts);
    cJSON *errors = cJSON_AddArrayToObject(doc, "errors");
    for (size_t i = 0; i < course_error_count(c); i++)
        cJSON_AddItemToArray(errors, cJSON_CreateString(course_error(c, i)));
    cJSON_AddItemToObject(doc, "tasks", tasks);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    sb_puts(b, text ? text : "null");
    sb_puts(b, "\n");
    cJSON_free(text);
}

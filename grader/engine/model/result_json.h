/* result_json.h — the result's JSON codec: the engine's one record of a grading, used by saved
 * progress, the reports and class grading alike. Fields are documented in grader/README.md. */
#ifndef GRADER_RESULT_JSON_H
#define GRADER_RESULT_JSON_H

#include <cjson/cJSON.h>

#include "model.h"

/* One task as the JSON object of a report's "tasks" array; the caller owns it. */
cJSON *task_to_json(const struct task *t);
/* A result as JSON and back (NULL when j is not a result this module wrote). */
cJSON *result_to_json(const struct task_result *r);
struct task_result *result_from_json(const cJSON *j);

#endif /* GRADER_RESULT_JSON_H */

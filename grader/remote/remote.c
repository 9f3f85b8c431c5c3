/* remote.c — a student's tasks graded through Slurm (remote.h): the build and the object check
 * here, the rest by the grader in one job on a GPU node, its results read back. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "remote.h"
#include "result_json.h"

/* The check here passed: the task's runs are due on the node. */
static int runs_due(const struct task_result *r)
{
    return r && result_outcome(r) == OUTCOME_NOT_RUN &&
           strcmp(result_reason(r), GRADE_CHECKS_ONLY_REASON) == 0;
}

/* r as a result not run for why (r is freed). Its exercise's hash goes: a task whose runs
 * never happened is never fresh, so it is graded again. */
static struct task_result *not_run(struct task_result *r, const char *why)
{
    cJSON *j = result_to_json(r);
    task_result_free(r);
    cJSON_DeleteItemFromObjectCaseSensitive(j, "reason");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "exercise_hash");
    cJSON_DeleteItemFromObjectCaseSensitive(j, "outcome");
    cJSON_AddStringToObject(j, "outcome", outcome_key(OUTCOME_NOT_RUN));
    cJSON_AddStringToObject(j, "reason", why);
    struct task_result *x = result_from_json(j);
    cJSON_Delete(j);
    return x;
}

/* The result of task id in the job's report; NULL when it has none. */
static struct task_result *from_report(const cJSON *report, const char *id)
{
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(report, "tasks"), *t;
    cJSON_ArrayForEach(t, tasks) {
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(t, "id");
        if (cJSON_IsString(tid) && strcmp(tid->valuestring, id) == 0)
            return result_from_json(t);
    }
    return NULL;
}

static void take(size_t i, struct task_result *r, void *user)
{
    ((struct task_result **)user)[i] = r;
}

/* The job for the tasks whose runs are due (idx[0..m)), its results into r. */
static void grade_there(const struct task *const *tasks, const size_t *idx, size_t m,
                        const struct grade_opts *o, struct task_result **r)
{
    const char **ids = xcalloc(m, sizeof *ids);
    for (size_t k = 0; k < m; k++)
        ids[k] = task_id(tasks[idx[k]]);
    cJSON *report = NULL;
    char e[2048] = "";
    const struct remote_target *rt = o->remote;
    int rc = remote_job_run(rt, o, ids, m, tasks[idx[0]], &report, e, sizeof e);
    char *why = rc == 0 ? NULL : rc == 1 ? xstrdup("cancelled") : xasprintf("Slurm: %s", e);
    if (rc < 0 && rt->status)
        rt->status(rt->status_user, e);
    for (size_t k = 0; k < m; k++) {
        size_t i = idx[k];
        struct task_result *got = report ? from_report(report, ids[k]) : NULL;
        if (got) {
            task_result_free(r[i]);
            r[i] = got;
        } else if (why) {
            r[i] = not_run(r[i], why);
        } else {
            char *miss = xasprintf("grader error: the Slurm job's report has no result for %s",
                                   ids[k]);
            r[i] = not_run(r[i], miss);
            free(miss);
        }
    }
    free(why);
    cJSON_Delete(report);
    free(ids);
}

size_t remote_grade_many(const struct task *const *tasks, size_t n, const struct grade_opts *o,
                         unsigned jobs, grade_done_fn done, void *user)
{
    struct task_result **r = xcalloc(n ? n : 1, sizeof *r);
    struct grade_opts here = *o;
    here.checks_only = 1;
    grade_many(tasks, n, &here, jobs, take, r);
    size_t *idx = xcalloc(n ? n : 1, sizeof *idx), m = 0;
    for (size_t i = 0; i < n; i++)
        if (runs_due(r[i]))
            idx[m++] = i;
    if (m && !(o->cancel && *o->cancel))
        grade_there(tasks, idx, m, o, r);
    size_t handed = 0;
    for (size_t i = 0; i < n; i++) {
        if (runs_due(r[i])) /* cancelled before its job */
            r[i] = not_run(r[i], "cancelled");
        if (r[i]) {
            done(i, r[i], user);
            handed++;
        }
    }
    free(idx);
    free(r);
    return handed;
}

static void take_one(size_t i, struct task_result *r, void *user)
{
    (void)i;
    *(struct task_result **)user = r;
}

struct task_result *remote_grade_task(const struct task *t, const struct grade_opts *o)
{
    struct task_result *r = NULL;
    remote_grade_many(&t, 1, o, 1, take_one, &r);
    return r;
}

/* collect.h — what the profile asks ncu for, and the digest of a graded task.
 *
 * The engine runs ncu (grade_opts.profile_args, grade_profile.c); this wing says with which
 * sections and metrics, and reads what came back with the lesson's rules
 * (lessons/L/profile.ini, rules.h).
 */
#ifndef GRADER_PROFILE_COLLECT_H
#define GRADER_PROFILE_COLLECT_H

#include "digest.h"
#include "model.h"

/* ncu's options for the profile, NULL-terminated: the sections the digest reads (speed of
 * light, occupancy, launch statistics, warp states, memory tables) and the metrics no section
 * gives (FLOP counts, DRAM bytes, global atomics). For grade_opts.profile_args. */
const char *const *profile_ncu_args(void);

/* The digest of task t's grading r; NULL when r holds no profile (not asked for, or the
 * grading did not reach the speed). */
struct profile_digest *profile_digest_task(const struct task *t, const struct task_result *r);
/* For the reports: the digest as text appended to b (nothing when none), and as the JSON
 * object of a task's "profile" (NULL when none). */
void profile_task_text(const struct task *t, const struct task_result *r, const char *indent,
                       struct strbuf *b);
cJSON *profile_task_json(const struct task *t, const struct task_result *r);

/* The rules file of a lesson: <lesson dir>/profile.ini, malloc'd. */
char *profile_rules_path(const struct lesson *l);

#endif /* GRADER_PROFILE_COLLECT_H */

/* session.c — one grading session (session.h). */
#include "session.h"

#include <stdlib.h>

#include "model_impl.h"
#include "state.h"

struct grading_session {
    struct course *course;
    char *state_path;               /* NULL: no saved progress */
    struct grader_state *state;
    char *state_note;               /* the corrupt state file kept aside; NULL: none */
};

int grader_exit_status(size_t graded, size_t passed, size_t skipped, size_t errors)
{
    if (errors || passed + skipped < graded)
        return GRADER_EXIT_NOT_ALL;
    return graded && skipped == graded ? GRADER_EXIT_SKIPPED : GRADER_EXIT_PASSED;
}

int course_exit_status(const struct course *c)
{
    size_t graded = 0, passed = 0, skipped = 0;
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        if (!task_result(t))
            continue;
        graded++;
        passed += task_outcome(t) == OUTCOME_PASSED;
        skipped += task_outcome(t) == OUTCOME_SKIPPED;
    }
    return grader_exit_status(graded, passed, skipped, course_error_count(c));
}

struct grading_session *session_open(struct course *c, const char *state_path, int apply_saved)
{
    struct grading_session *s = xcalloc(1, sizeof *s);
    s->course = c;
    if (state_path) {
        s->state_path = xstrdup(state_path);
        s->state = state_load(state_path, &s->state_note);
        if (apply_saved)
            state_apply(s->state, c);
    }
    return s;
}

void session_close(struct grading_session *s)
{
    if (!s)
        return;
    state_free(s->state);
    free(s->state_note);
    free(s->state_path);
    free(s);
}

const char *session_state_note(const struct grading_session *s)
{
    return s ? s->state_note : NULL;
}

struct course *session_course(const struct grading_session *s)
{
    return s->course;
}

int session_is_fresh(const struct grading_session *s, const struct task *t)
{
    return s && s->state && task_result(t) && state_is_fresh(s->state, t);
}

int session_take(struct grading_session *s, struct task *t, struct task_result *r)
{
    task_set_result(t, r);
    if (!s->state)
        return 0;
    state_record(s->state, t);
    return state_save(s->state, s->state_path);
}

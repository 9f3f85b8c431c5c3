/* state.h — progress that survives restarts: <root>/.grader/state.json (git-ignored).
 *
 * One entry per task id, holding the task's last result and the content hash of the exercise
 * file it graded. An entry is fresh while the exercise file still hashes the same: fresh
 * results are shown again at start-up and the task is not regraded until its file changes.
 * A missing or unreadable state file is an empty state, never an error; a corrupt one (not
 * JSON, or without its tasks) is an empty state too, and is first renamed
 * state.json.corrupt-<time> so that nothing of it is lost.
 */
#ifndef GRADER_STATE_H
#define GRADER_STATE_H

#include <stddef.h>

#include "model.h"

struct grader_state;

/* The default path for a course root: <root>/.grader/state.json (malloc'd). */
char *state_default_path(const char *root);
/* Never NULL (NULL only when out of memory). *note: NULL, or one line (malloc'd) saying that
 * a corrupt file was kept aside, and where. */
struct grader_state *state_load(const char *path, char **note);
/* Writes atomically (temporary file + rename), creating the directory; 0 or -1. */
int state_save(const struct grader_state *s, const char *path);
void state_free(struct grader_state *s);


/* Remember t's current result (no-op when it has none). */
void state_record(struct grader_state *s, const struct task *t);
/* 1 when the saved entry for t was graded from the file as it is now. */
int state_is_fresh(const struct grader_state *s, const struct task *t);
/* Give every task with a fresh entry its saved result; returns how many. */
size_t state_apply(const struct grader_state *s, struct course *c);

#endif /* GRADER_STATE_H */

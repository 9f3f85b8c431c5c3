/* watch.h — watching exercise files for saves (inotify), debounced and content-gated.
 *
 * The watch is on the files' directories, not on the files: editors often save by writing a
 * new file and renaming it over the old one, which a watch on the file itself would lose.
 * An event only marks its file; the file is reported once it has been quiet for the debounce
 * time (an editor that writes twice per save, or a `git checkout` of many files, gives one
 * report per file), and only when its content hashes differently from the last report (a save
 * without changes reports nothing). No curses: the caller polls watch_fd with its other
 * sources and asks watch_due after each wake-up or timeout.
 */
#ifndef GRADER_WATCH_H
#define GRADER_WATCH_H

#include <stddef.h>

#define WATCH_DEBOUNCE_MS 150

struct exercise_watch;

/* Watches files paths[0..n-1] (copied); index i names file i in every answer. NULL (errno
 * set) when inotify is unavailable or no directory could be watched. */
struct exercise_watch *watch_start(const char *const *paths, size_t n);
void watch_stop(struct exercise_watch *w);
int watch_fd(const struct exercise_watch *w);

/* Reads the pending events (call when watch_fd is readable; harmless otherwise). */
void watch_read(struct exercise_watch *w);
/* Milliseconds until the next marked file is due; -1 when none is marked. */
int watch_timeout_ms(const struct exercise_watch *w);
/* Puts up to max indexes of files that are due and whose content changed into out; returns
 * how many. A due file whose content did not change is unmarked silently. */
size_t watch_due(struct exercise_watch *w, size_t *out, size_t max);

#endif /* GRADER_WATCH_H */

/* util.h — the helpers every wing of the grader shares: allocation that cannot fail
 * (out of memory aborts: the grader cannot go on without it), a growable string list, a string
 * buffer, the clock and the stop signals. Files and paths: fs.h. */
#ifndef GRADER_UTIL_H
#define GRADER_UTIL_H

#include <signal.h>
#include <stddef.h>

/* A growable array of malloc'd strings. */
struct strlist {
    char **v;
    size_t n, cap;
};
void strlist_push(struct strlist *l, const char *s);
void strlist_free(struct strlist *l);

/* malloc'd copy; NULL in -> "" out. Out of memory aborts: the grader cannot go on without it. */
char *xstrdup(const char *s);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
#include <stdarg.h>
char *xvasprintf(const char *fmt, va_list ap);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Replace *dst (freed) by a copy of s. */
void set_str(char **dst, const char *s);

/* Seconds on the monotonic clock: for measuring durations only. */
double now_s(void);

/* A speed ratio as a student reads it, into buf (16 bytes or more): two decimals ("0.83"),
 * but two significant digits under 0.1, so that a kernel hundreds of times slower reads
 * "0.002", not "0.00". Returns buf. */
char *ratio_text(double ratio, char *buf, size_t len);

/* Runs argv, a trusted tool looked up in PATH, with stdin from /dev/null and its stdout (and
 * its stderr too when with_stderr, else discarded) into *out: malloc'd, NUL-terminated, at most
 * max bytes (the rest is read and dropped, so the tool never blocks on a full pipe), its length
 * in *len (may be NULL). Returns the exit status, or -1 when it could not be started or did
 * not exit (*out NULL). */
int run_capture(char *const argv[], int with_stderr, size_t max, char **out, size_t *len);

/* From now on SIGINT and SIGTERM set *flag to 1 (no SA_RESTART: a blocking call returns EINTR,
 * so the one waiting sees it at once). */
void catch_stop_signals(volatile sig_atomic_t *flag);

/* A growable NUL-terminated string; zero-initialised is empty. */
struct strbuf {
    char *s;
    size_t len, cap;
};
void sb_add(struct strbuf *b, const char *s, size_t n);
void sb_puts(struct strbuf *b, const char *s);
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string (malloc'd, "" when empty); the buffer is empty again. */
char *sb_take(struct strbuf *b);

#endif /* GRADER_UTIL_H */

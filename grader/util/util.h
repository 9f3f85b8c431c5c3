/* util.h — the helpers every wing of the grader shares: allocation that cannot fail
 * (out of memory aborts: the grader cannot go on without it), a growable string list, a string
 * buffer and the clock. Files and paths: fs.h. */
#ifndef GRADER_UTIL_H
#define GRADER_UTIL_H

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

/* A growable NUL-terminated string; zero-initialised is empty. */
struct strbuf {
    char *s;
    size_t len, cap;
};
void sb_add(struct strbuf *b, const char *s, size_t n);
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string (malloc'd, "" when empty); the buffer is empty again. */
char *sb_take(struct strbuf *b);

#endif /* GRADER_UTIL_H */

/* util.h — the helpers every wing of the grader shares: allocation that cannot fail
 * (out of memory aborts: the grader cannot go on without it) and a growable string list. */
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
/* Replace *dst (freed) by a formatted string. */
void set_str(char **dst, const char *s);

#endif /* GRADER_UTIL_H */

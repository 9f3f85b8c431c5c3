/* util.c — the helpers every wing of the grader shares (util.h). */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static void out_of_memory(void)
{
    fputs("grader: out of memory\n", stderr);
    abort();
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        out_of_memory();
    return q;
}

char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        out_of_memory();
    return d;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        out_of_memory();
    return s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void set_str(char **dst, const char *s)
{
    char *copy = xstrdup(s);
    free(*dst);
    *dst = copy;
}

void strlist_push(struct strlist *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = xstrdup(s);
}

void strlist_free(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}


double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

char *ratio_text(double ratio, char *buf, size_t len)
{
    snprintf(buf, len, ratio > 0 && ratio < 0.1 ? "%.2g" : "%.2f", ratio);
    return buf;
}

/* The child of run_capture: /dev/null in, the pipe out. */
static void capture_child(char *const argv[], int with_stderr, int fd)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0)
        _exit(127);
    dup2(null, 0);
    dup2(fd, 1);
    dup2(with_stderr ? fd : null, 2);
    execvp(argv[0], argv);
    _exit(127);
}

int run_capture(char *const argv[], int with_stderr, size_t max, char **out, size_t *len)
{
    *out = NULL;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0)
        capture_child(argv, with_stderr, fds[1]);
    close(fds[1]);
    struct strbuf b = { 0 };
    char chunk[4096];
    ssize_t got;
    while (pid > 0 && ((got = read(fds[0], chunk, sizeof chunk)) > 0 || (got < 0 && errno == EINTR)))
        if (got > 0 && b.len < max)
            sb_add(&b, chunk, (size_t)got < max - b.len ? (size_t)got : max - b.len);
    close(fds[0]);
    int status = -1;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
        free(b.s);
        return -1;
    }
    if (len)
        *len = b.len;
    *out = sb_take(&b);
    return WEXITSTATUS(status);
}

static volatile sig_atomic_t *stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    *stop_flag = 1;
}

void catch_stop_signals(volatile sig_atomic_t *flag)
{
    stop_flag = flag;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void sb_add(struct strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = b->cap ? b->cap : 64;
        while (b->len + n + 1 > b->cap)
            b->cap *= 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void sb_puts(struct strbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    sb_add(b, s, strlen(s));
    free(s);
}

char *sb_take(struct strbuf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    memset(b, 0, sizeof *b);
    return s;
}

/* writer.c — text buffers, escaping, UTF-8 cleaning and atomic files: see writer.h. */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void wb_putn(struct wbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void wb_puts(struct wbuf *b, const char *s) { wb_putn(b, s, strlen(s)); }

void wb_printf(struct wbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    wb_puts(b, s);
    free(s);
}

void wb_xml(struct wbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '&': wb_puts(b, "&amp;"); break;
        case '<': wb_puts(b, "&lt;"); break;
        case '>': wb_puts(b, "&gt;"); break;
        case '"': wb_puts(b, "&quot;"); break;
        case '\'': wb_puts(b, "&apos;"); break;
        default:
            if (ch >= 0x20 || ch == '\t' || ch == '\n')
                wb_putn(b, (const char *)&ch, 1);
        }
    }
}

void wb_csv(struct wbuf *b, const char *s)
{
    int formula = strchr("=+-@\t\r", s[0]) != NULL && s[0] != 0;
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        wb_puts(b, s);
        return;
    }
    wb_puts(b, formula ? "\"'" : "\"");
    for (const char *p = s; *p; p++)
        wb_putn(b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
    wb_puts(b, "\"");
}

/* ---------------------------------------------------------------- UTF-8 */
/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF), 0 when there is none. */
static size_t utf8_seq(const unsigned char *p, size_t left)
{
    unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else
        return 0;
    if (left < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    /* U+FFFE and U+FFFF are not characters (XML 1.0 forbids them) */
    if (n == 3 && c == 0xef && p[1] == 0xbf && p[2] >= 0xbe)
        return 0;
    return n;
}

char *utf8_clean(const char *s, size_t n, size_t *out_len)
{
    const unsigned char *p = (const unsigned char *)s;
    struct wbuf b = { 0 };
    wb_putn(&b, "", 0);
    size_t i = 0, run = 0;   /* bytes [i - run, i) are good and not yet copied */
    while (i < n) {
        size_t k = utf8_seq(p + i, n - i);
        int control = k == 1 && (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r');
        if (k && !control) {
            i += k;
            run += k;
            continue;
        }
        wb_putn(&b, s + i - run, run);
        run = 0;
        if (!control)
            wb_puts(&b, "\xef\xbf\xbd");
        i++;
    }
    wb_putn(&b, s + i - run, run);
    if (out_len)
        *out_len = b.len;
    return b.data;
}

char *wb_take(struct wbuf *b)
{
    char *text = utf8_clean(b->data ? b->data : "", b->len, NULL);
    free(b->data);
    memset(b, 0, sizeof *b);
    return text;
}

int wb_emit(struct wbuf *b, FILE *out)
{
    size_t n;
    char *text = utf8_clean(b->data ? b->data : "", b->len, &n);
    free(b->data);
    memset(b, 0, sizeof *b);
    int rc = fwrite(text, 1, n, out) == n && fflush(out) == 0 ? 0 : -1;
    free(text);
    return rc;
}

int wb_write(struct wbuf *b, const char *path)
{
    size_t n;
    char *text = utf8_clean(b->data ? b->data : "", b->len, &n);
    free(b->data);
    memset(b, 0, sizeof *b);
    int rc = file_write_atomic(path, text, n);
    int saved = errno;
    free(text);
    errno = saved;
    return rc;
}

/* ---------------------------------------------------------------- files */
static int write_all(int fd, const char *data, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

int file_write_atomic(const char *path, const char *data, size_t len)
{
    /* same directory as the target: rename(2) is atomic only within one file system */
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    /* fsync before rename: after a crash the name points at complete contents or the old ones */
    int ok = write_all(fd, data, len) == 0 && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0)
        ok = 0;
    if (ok && rename(tmp, path) == 0) {
        free(tmp);
        return 0;
    }
    saved = errno ? errno : saved;
    unlink(tmp);
    free(tmp);
    errno = saved ? saved : EIO;
    return -1;
}

char *file_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct wbuf b = { 0 };
    char chunk[8192];
    size_t n;
    wb_putn(&b, "", 0);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        wb_putn(&b, chunk, n);
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(b.data);
        errno = EIO;
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.data;
}

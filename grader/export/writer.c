/* writer.c — escaping, UTF-8 cleaning and the way out of every report: see writer.h. */
#include "writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "lab.h"
#include "util.h"

void wb_xml(struct strbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '&': sb_puts(b, "&amp;"); break;
        case '<': sb_puts(b, "&lt;"); break;
        case '>': sb_puts(b, "&gt;"); break;
        case '"': sb_puts(b, "&quot;"); break;
        case '\'': sb_puts(b, "&apos;"); break;
        default:
            if (ch >= 0x20 || ch == '\t' || ch == '\n')
                sb_add(b, (const char *)&ch, 1);
        }
    }
}

void wb_csv(struct strbuf *b, const char *s)
{
    char *cell = xcalloc(1, LAB_CSV_CELL_MAX(strlen(s)));
    sb_add(b, cell, lab_csv_cell(s, 1, cell));
    free(cell);
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
    struct strbuf b = { 0 };
    size_t i = 0, run = 0;   /* bytes [i - run, i) are good and not yet copied */
    while (i < n) {
        size_t k = utf8_seq(p + i, n - i);
        int control = k == 1 && (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r');
        if (k && !control) {
            i += k;
            run += k;
            continue;
        }
        sb_add(&b, s + i - run, run);
        run = 0;
        if (!control)
            sb_puts(&b, "\xef\xbf\xbd");
        i++;
    }
    sb_add(&b, s + i - run, run);
    if (out_len)
        *out_len = b.len;
    return sb_take(&b);
}

/* The buffer's text cleaned, its length in *n; the buffer is emptied. */
static char *clean_take(struct strbuf *b, size_t *n)
{
    char *text = utf8_clean(b->s ? b->s : "", b->len, n);
    free(b->s);
    memset(b, 0, sizeof *b);
    return text;
}

char *wb_take(struct strbuf *b)
{
    return clean_take(b, NULL);
}

int wb_emit(struct strbuf *b, FILE *out)
{
    size_t n;
    char *text = clean_take(b, &n);
    int rc = fwrite(text, 1, n, out) == n && fflush(out) == 0 ? 0 : -1;
    free(text);
    return rc;
}

int wb_write(struct strbuf *b, const char *path)
{
    size_t n;
    char *text = clean_take(b, &n);
    int rc = write_atomic(path, text, n);
    int saved = errno;
    free(text);
    errno = saved;
    return rc;
}

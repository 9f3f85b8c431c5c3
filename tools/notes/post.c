// The notes renderer's pass over md4c's HTML (see post.h). md4c writes headings as a bare
// <hN>, links as href="..." and images as <img src="..."> with the URL attribute-escaped, so a
// plain scan of its output finds all three.
#include "post.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void buf_add(buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) {
            fputs("notes: out of memory\n", stderr);
            exit(1);
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_puts(buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void heading_list_free(heading_list *h)
{
    free(h->items);
    h->items = NULL;
    h->n = h->cap = 0;
}

static int fail(post_ctx *ctx, const char *fmt, const char *what)
{
    char msg[900];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(ctx->error, sizeof ctx->error, "%s: %s", ctx->src, msg);
    return -1;
}

void slugify(const char *text, char *out, size_t cap)
{
    size_t o = 0;
    int dash = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && o + 2 < cap; p++) {
        unsigned char c = *p;
        int keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80;
        if (c >= 'A' && c <= 'Z') {
            c = (unsigned char)(c - 'A' + 'a');
            keep = 1;
        }
        if (c == '&') { // an entity such as &amp; is one separator, not letters
            const char *semi = strchr((const char *)p, ';');
            if (semi && semi - (const char *)p < 10)
                p = (const unsigned char *)semi;
            keep = 0;
        }
        if (!keep) {
            dash = o > 0;
            continue;
        }
        if (dash)
            out[o++] = '-';
        dash = 0;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    if (o == 0)
        snprintf(out, cap, "section");
}

// Copies s[0..n) without its tags into out.
static void strip_tags(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    int in_tag = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        if (s[i] == '<')
            in_tag = 1;
        else if (s[i] == '>')
            in_tag = 0;
        else if (!in_tag)
            out[o++] = s[i];
    }
    out[o] = '\0';
}

static int id_taken(const heading_list *h, const char *id)
{
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->items[i].id, id))
            return 1;
    return 0;
}

// At "<hN>": emits the heading with an id, records it, returns the length consumed (the open tag).
static size_t heading_open(const char *p, buf *out, heading_list *h)
{
    int level = p[2] - '0';
    char close[16];
    snprintf(close, sizeof close, "</h%d>", level);
    const char *end = strstr(p + 4, close);
    size_t inner = end ? (size_t)(end - (p + 4)) : 0;
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 32;
        h->items = realloc(h->items, h->cap * sizeof *h->items);
        if (!h->items) {
            fputs("notes: out of memory\n", stderr);
            exit(1);
        }
    }
    heading *x = &h->items[h->n];
    x->level = level;
    strip_tags(p + 4, inner, x->text, sizeof x->text);
    char slug[100];
    slugify(x->text, slug, sizeof slug);
    snprintf(x->id, sizeof x->id, "%s", slug);
    for (int k = 2; id_taken(h, x->id); k++)
        snprintf(x->id, sizeof x->id, "%s-%d", slug, k);
    h->n++;
    char tag[200];
    snprintf(tag, sizeof tag, "<h%d id=\"%s\">", level, x->id);
    buf_puts(out, tag);
    return 4;
}

static int is_external(const char *url)
{
    return strstr(url, "://") || !strncmp(url, "mailto:", 7) || url[0] == '#';
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && !memcmp(s + n - k, suffix, k);
}

// Rewrites the URL of a link: a lesson's README.md becomes its page; other .md is an error.
static int rewrite_href(const char *url, buf *out, post_ctx *ctx)
{
    if (is_external(url)) {
        buf_puts(out, url);
        return 0;
    }
    const char *hash = strchr(url, '#');
    size_t path_len = hash ? (size_t)(hash - url) : strlen(url);
    if (!ends_with(url, path_len, ".md")) {
        buf_puts(out, url);
        return 0;
    }
    if (path_len == strlen("README.md") && !strncmp(url, "README.md", path_len)) {
        buf_puts(out, "index.html");
    } else {
        size_t i;
        for (i = 0; i < ctx->ndirs; i++) {
            char want[300];
            int n = snprintf(want, sizeof want, "../%s/README.md", ctx->dirs[i]);
            if ((size_t)n == path_len && !strncmp(url, want, path_len))
                break;
        }
        if (i == ctx->ndirs)
            return fail(ctx, "link to %s: only a lesson's README.md becomes a page; "
                             "link the lesson, or a web page", url);
        buf_puts(out, "../");
        buf_puts(out, ctx->dirs[i]);
        buf_puts(out, "/index.html");
    }
    if (hash)
        buf_puts(out, hash);
    return 0;
}

static int check_image(const char *url, post_ctx *ctx)
{
    if (is_external(url))
        return 0;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", ctx->base, url);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return fail(ctx, "image %s does not exist beside the README", url);
    return 0;
}

// At an attribute `name="`: copies it, rewriting or checking its value. Returns bytes consumed.
static long attribute(const char *p, int is_src, buf *out, post_ctx *ctx)
{
    size_t name_len = is_src ? 5 : 6; // src=" or href="
    const char *val = p + name_len, *end = strchr(val, '"');
    if (!end)
        return fail(ctx, "%s", "unterminated attribute in the renderer's output");
    char url[1024];
    snprintf(url, sizeof url, "%.*s", (int)(end - val), val);
    buf_add(out, p, name_len);
    if (is_src) {
        if (check_image(url, ctx) != 0)
            return -1;
        buf_puts(out, url);
    } else if (rewrite_href(url, out, ctx) != 0) {
        return -1;
    }
    buf_puts(out, "\"");
    return (long)(end + 1 - p);
}

int post_process(const char *html, buf *out, heading_list *h, post_ctx *ctx)
{
    const char *p = html;
    while (*p) {
        if (p[0] == '<' && p[1] == 'h' && p[2] >= '1' && p[2] <= '6' && p[3] == '>') {
            p += heading_open(p, out, h);
        } else if (!strncmp(p, "href=\"", 6) || !strncmp(p, "src=\"", 5)) {
            long used = attribute(p, p[0] == 's', out, ctx);
            if (used < 0)
                return -1;
            p += used;
        } else if (!strncmp(p, "<pre>", 5) || !strncmp(p, "<code>", 6)) {
            // Code is copied verbatim: "href=" inside a code sample is text, not a link.
            const char *close = strstr(p, p[1] == 'p' ? "</pre>" : "</code>");
            size_t n = close ? (size_t)(close - p) : strlen(p);
            buf_add(out, p, n);
            p += n;
        } else {
            buf_add(out, p, 1);
            p++;
        }
    }
    return 0;
}

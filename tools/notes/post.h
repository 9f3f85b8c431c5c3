// The notes renderer's pass over md4c's HTML: heading ids, lesson links, image checks.
#ifndef NOTES_POST_H
#define NOTES_POST_H

#include <stddef.h>

// A growable byte buffer; exits on allocation failure.
typedef struct {
    char *data;
    size_t len, cap;
} buf;
void buf_add(buf *b, const char *s, size_t n);
void buf_puts(buf *b, const char *s);

typedef struct {
    int level;      // 1..6
    char id[128];   // the id given to the heading element
    char text[512]; // its inner HTML with the tags removed
} heading;

typedef struct {
    heading *items;
    size_t n, cap;
} heading_list;
void heading_list_free(heading_list *h);

typedef struct {
    const char *src;          // the README's path, for error messages
    const char *base;         // its directory, where image paths are resolved
    const char *const *dirs;  // every lesson's directory name: the pages that exist
    size_t ndirs;
    char error[1024];         // the one-line reason when post_process fails
} post_ctx;

// Copies the NUL-terminated html into out with ids on every heading (recorded in h), links to
// lessons' README.md turned into links to their pages, and every local image checked to exist.
// Returns 0, or -1 with ctx->error set.
int post_process(const char *html, buf *out, heading_list *h, post_ctx *ctx);

// The id for a heading text: lowercase ASCII letters and digits, UTF-8 kept, runs of anything
// else as one '-', no leading or trailing '-'. Exposed for the tests of the renderer.
void slugify(const char *text, char *out, size_t cap);

#endif

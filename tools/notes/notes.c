// make notes: every lesson's README.md rendered to HTML through md4c's HTML renderer.
//
//   notes-html OUTDIR lessons/01-x/README.md lessons/02-y/README.md ...
//
// writes OUTDIR/index.html and OUTDIR/<lesson>/index.html for each README, in the order given
// (that order is the course: previous / next links follow it). Each page gets ids on its
// headings, a table of contents built from its level-2 and level-3 headings, and links to the
// previous lesson, the index and the next lesson. A link to another lesson's README.md becomes a
// link to that lesson's page. A link to any other .md file, or an image that does not exist
// beside the README, is an error: one line on stderr, exit status 1. Figures are copied by the
// Makefile (tools/notes/notes.mk), next to each page, so image paths stay as written.
#include <errno.h>
#include <md4c-html.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "post.h"

typedef struct {
    const char *src;   // path of the README.md
    char dir[256];     // its lesson directory name, e.g. "04-tiling"
    char title[512];   // text of its first level-1 heading (HTML-escaped by md4c)
} lesson;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("notes: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot read %s: %s", path, strerror(errno));
    buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_add(&b, chunk, n);
    fclose(f);
    buf_add(&b, "", 1); // NUL terminator, not counted
    *len = b.len - 1;
    return b.data;
}

static void on_output(const MD_CHAR *text, MD_SIZE size, void *userdata)
{
    buf_add((buf *)userdata, text, size);
}

// The lesson directory of a README path: "lessons/04-tiling/README.md" -> "04-tiling".
static void lesson_dir(const char *path, char *out, size_t cap)
{
    const char *end = strrchr(path, '/');
    if (!end)
        die("%s: expected a path like lessons/NN-name/README.md", path);
    const char *start = end;
    while (start > path && start[-1] != '/')
        start--;
    size_t n = (size_t)(end - start);
    if (n == 0 || n >= cap)
        die("%s: expected a path like lessons/NN-name/README.md", path);
    memcpy(out, start, n);
    out[n] = '\0';
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create %s: %s", path, strerror(errno));
}

static const char *const css =
    "body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:0 auto;padding:1rem;"
    "color:#1d1d1f;background:#fff}\n"
    "img{max-width:100%;height:auto;display:block;margin:1rem auto}\n"
    "table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto;margin:1rem 0}\n"
    "th,td{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top}\n"
    "th{background:#f3f3f3}\n"
    "pre{background:#f6f8fa;padding:.75rem;overflow-x:auto;max-width:100%}\n"
    "code{font:14px/1.4 ui-monospace,monospace;overflow-wrap:anywhere}\n"
    "pre code{overflow-wrap:normal}\n"
    "nav.pager{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0;"
    "padding:.5rem 0;border-top:1px solid #ddd;border-bottom:1px solid #ddd}\n"
    "nav.toc{background:#fafafa;border:1px solid #e3e3e3;padding:.5rem 1rem;margin:1rem 0}\n"
    "nav.toc ul{margin:.25rem 0;padding-left:1.25rem}\n"
    "blockquote{border-left:4px solid #ccc;margin:1rem 0;padding:0 1rem;color:#444}\n";

static void page_head(FILE *f, const char *title)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n",
            title, css);
}

static void pager(FILE *f, const lesson *prev, const lesson *next)
{
    fputs("<nav class=\"pager\">", f);
    if (prev)
        fprintf(f, "<a rel=\"prev\" href=\"../%s/index.html\">&larr; %s</a>", prev->dir, prev->title);
    else
        fputs("<span></span>", f);
    fputs("<a href=\"../index.html\">All lessons</a>", f);
    if (next)
        fprintf(f, "<a rel=\"next\" href=\"../%s/index.html\">%s &rarr;</a>", next->dir, next->title);
    else
        fputs("<span></span>", f);
    fputs("</nav>\n", f);
}

static void toc(FILE *f, const heading_list *h)
{
    fputs("<nav class=\"toc\"><strong>Contents</strong>\n<ul>\n", f);
    int open_sub = 0;
    for (size_t i = 0; i < h->n; i++) {
        const heading *x = &h->items[i];
        if (x->level == 3 && !open_sub) {
            fputs("<ul>\n", f);
            open_sub = 1;
        } else if (x->level == 2 && open_sub) {
            fputs("</ul>\n", f);
            open_sub = 0;
        }
        if (x->level == 2 || x->level == 3)
            fprintf(f, "<li><a href=\"#%s\">%s</a></li>\n", x->id, x->text);
    }
    if (open_sub)
        fputs("</ul>\n", f);
    fputs("</ul>\n</nav>\n", f);
}

// Renders one README to HTML and post-processes it; fills the lesson's title.
static void render(lesson *l, const char *const *dirs, size_t ndirs, buf *out, heading_list *h)
{
    size_t len;
    char *md = read_file(l->src, &len);
    buf raw = {0};
    unsigned parser = MD_DIALECT_GITHUB;
    if (md_html(md, (MD_SIZE)len, on_output, &raw, parser, 0) != 0)
        die("%s: md4c could not parse it", l->src);
    buf_add(&raw, "", 1);
    char base[512];
    snprintf(base, sizeof base, "%.*s", (int)(strrchr(l->src, '/') - l->src), l->src);
    post_ctx ctx = {l->src, base, dirs, ndirs, {0}};
    if (post_process(raw.data, out, h, &ctx) != 0)
        die("%s", ctx.error);
    for (size_t i = 0; i < h->n; i++)
        if (h->items[i].level == 1) {
            snprintf(l->title, sizeof l->title, "%s", h->items[i].text);
            break;
        }
    if (!l->title[0])
        die("%s: no level-1 heading to take the page title from", l->src);
    free(raw.data);
    free(md);
}

static void write_page(const char *outdir, lesson *ls, size_t n, size_t i, const buf *body,
                       const heading_list *h)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", outdir, ls[i].dir);
    make_dir(path);
    snprintf(path, sizeof path, "%s/%s/index.html", outdir, ls[i].dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    page_head(f, ls[i].title);
    const lesson *prev = i > 0 ? &ls[i - 1] : NULL, *next = i + 1 < n ? &ls[i + 1] : NULL;
    pager(f, prev, next);
    toc(f, h);
    fwrite(body->data, 1, body->len, f);
    pager(f, prev, next);
    fputs("</body>\n</html>\n", f);
    if (fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}

static void write_index(const char *outdir, const lesson *ls, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/index.html", outdir);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    page_head(f, "CUDA Lab: lecture notes");
    fputs("<h1>CUDA Lab: lecture notes</h1>\n<p>Nine lessons, in course order. Each page ends "
          "with its sources, key takeaways and questions to check your understanding.</p>\n<ol>\n",
          f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "<li><a href=\"%s/index.html\">%s</a></li>\n", ls[i].dir, ls[i].title);
    fputs("</ol>\n</body>\n</html>\n", f);
    if (fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTDIR lessons/NN-name/README.md...\n", argv[0]);
        return 2;
    }
    const char *outdir = argv[1];
    size_t n = (size_t)argc - 2;
    lesson *ls = calloc(n, sizeof *ls);
    const char **dirs = calloc(n, sizeof *dirs);
    buf *bodies = calloc(n, sizeof *bodies);
    heading_list *heads = calloc(n, sizeof *heads);
    if (!ls || !dirs || !bodies || !heads)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        ls[i].src = argv[i + 2];
        lesson_dir(ls[i].src, ls[i].dir, sizeof ls[i].dir);
        dirs[i] = ls[i].dir;
    }
    make_dir(outdir);
    for (size_t i = 0; i < n; i++)
        render(&ls[i], dirs, n, &bodies[i], &heads[i]);
    for (size_t i = 0; i < n; i++) {
        write_page(outdir, ls, n, i, &bodies[i], &heads[i]);
        free(bodies[i].data);
        heading_list_free(&heads[i]);
    }
    write_index(outdir, ls, n);
    free(heads);
    free(bodies);
    free(dirs);
    free(ls);
    return 0;
}

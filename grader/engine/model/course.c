/* course.c — loading the course: lessons/<L>/lesson.ini through inih.
 *
 * A lesson.ini is all-or-nothing: the first error (syntax, unknown key, bad number) becomes
 * the lesson's one error line "lessons/L/lesson.ini:LINE: what", the lesson keeps no tasks,
 * and loading goes on with the next lesson.
 */
#include "model_impl.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "fs.h"

/* inih reads a line into a buffer of INI_MAX_LINE (200) bytes and drops the rest, so longer
 * lines (long hints) are cut into continuation lines before inih sees them. A cut continuation
 * starts with SPLIT_MARK, which tells the handler to join it without a space. */
#define INI_CHUNK 150
#define SPLIT_MARK '\x01'

static const char *const known_sanitizers[] = {"memcheck", "racecheck", "synccheck", "initcheck"};

/* ======================================================================= parse state */
struct ini_ctx {
    struct lesson *lesson;
    char *error;          /* first error, without the "file:line: " prefix */
    int error_line;       /* its line in the original file */
    /* the text inih reads (long lines cut), where the reader is, and original line numbers */
    const char *text, *pos;
    int line;             /* lines handed to inih so far */
    int *orig_line;       /* orig_line[k]: the file's line of inih's line k+1 */
    /* one key = value held back until its continuation lines have been seen */
    char *p_section, *p_key, *p_value;
    int p_line;
};

static void ctx_error(struct ini_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctx_error(struct ini_ctx *x, const char *fmt, ...)
{
    if (x->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    x->error = xvasprintf(fmt, ap);
    va_end(ap);
    x->error_line = x->p_line;
}

static struct task *find_or_add_task(struct lesson *l, const char *name)
{
    for (size_t i = 0; i < l->n_tasks; i++)
        if (strcmp(l->tasks[i]->name, name) == 0)
            return l->tasks[i];
    struct task *t = xcalloc(1, sizeof *t);
    t->lesson = l;
    t->name = xstrdup(name);
    t->id = xasprintf("%s/%s", l->id, name);
    t->title = xstrdup("");
    t->weight = 1;
    t->speed_case = xstrdup("");
    t->sanitize_case = xstrdup("");
    t->rtol = t->atol = -1;
    t->work_queues = 1;
    t->exercise_path = xasprintf("%s/exercises/%s/%s.cu", l->course->root, l->id, name);
    l->tasks = xrealloc(l->tasks, (l->n_tasks + 1) * sizeof *l->tasks);
    l->tasks[l->n_tasks++] = t;
    return t;
}

/* Strict number: the whole value, finite. */
static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != 0 || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Whitespace- or comma-separated words appended to l. */
static void split_words(const char *value, struct strlist *l)
{
    char *copy = xstrdup(value);
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save))
        strlist_push(l, w);
    free(copy);
}

static int valid_hint_key(const char *name, long *index)
{
    if (strncmp(name, "hint.", 5) != 0)
        return 0;
    char *end;
    long n = strtol(name + 5, &end, 10);
    if (end == name + 5 || *end || n < 1)
        return 0;
    *index = n;
    return 1;
}

static int task_key(struct ini_ctx *x, struct task *t, const char *name, const char *value)
{
    double v;
    long hint;
    if (valid_hint_key(name, &hint)) {
        if ((size_t)hint != t->hints.n + 1) {
            ctx_error(x, "%s: hints must be numbered hint.1, hint.2, ... in order", name);
            return 0;
        }
        strlist_push(&t->hints, value);
        return 1;
    }
    if (strcmp(name, "title") == 0) {
        set_str(&t->title, value);
    } else if (strcmp(name, "weight") == 0 || strcmp(name, "speed_threshold") == 0 ||
               strcmp(name, "rtol") == 0 || strcmp(name, "atol") == 0) {
        if (parse_number(value, &v) < 0 || v < 0) {
            ctx_error(x, "%s: not a non-negative number", name);
            return 0;
        }
        if (name[0] == 'w')
            t->weight = v;
        else if (name[0] == 's')
            t->speed_threshold = v;
        else if (name[0] == 'r')
            t->rtol = v;
        else
            t->atol = v;
    } else if (strcmp(name, "work_queues") == 0) {
        if (parse_number(value, &v) < 0 || !(v >= 1 && v <= WORK_QUEUES_MAX) || v != (int)v) {
            ctx_error(x, "work_queues: not a whole number from 1 to %d", WORK_QUEUES_MAX);
            return 0;
        }
        t->work_queues = (int)v;
    } else if (strcmp(name, "speed_case") == 0) {
        set_str(&t->speed_case, value);
    } else if (strcmp(name, "sanitize_case") == 0) {
        set_str(&t->sanitize_case, value);
    } else if (strcmp(name, "sanitizers") == 0) {
        struct strlist words = {0};
        split_words(value, &words);
        for (size_t i = 0; i < words.n; i++) {
            size_t k = 0;
            while (k < 4 && strcmp(words.v[i], known_sanitizers[k]) != 0)
                k++;
            if (k == 4) {
                ctx_error(x, "sanitizers: unknown tool '%s' (memcheck, racecheck, synccheck, "
                             "initcheck)", words.v[i]);
                strlist_free(&words);
                return 0;
            }
            int dup = 0;
            for (size_t j = 0; j < t->sanitizers.n; j++)
                dup |= strcmp(t->sanitizers.v[j], words.v[i]) == 0;
            if (!dup && strcmp(words.v[i], "memcheck") != 0)
                strlist_push(&t->sanitizers, words.v[i]);
        }
        strlist_free(&words);
    } else if (strcmp(name, "forbid") == 0) {
        split_words(value, &t->forbid);
    } else if (strcmp(name, "allow") == 0) {
        split_words(value, &t->allow);
    } else {
        ctx_error(x, "unknown key '%s' in a task section", name);
        return 0;
    }
    return 1;
}

static int apply_key(struct ini_ctx *x, const char *section, const char *name,
                     const char *value)
{
    struct lesson *l = x->lesson;
    if (strcmp(section, "lesson") == 0) {
        if (strcmp(name, "title") == 0) {
            set_str(&l->title, value);
        } else if (strcmp(name, "notes") == 0) {
            set_str(&l->notes_path, value);
        } else {
            ctx_error(x, "unknown key '%s' in [lesson]", name);
            return 0;
        }
        return 1;
    }
    if (strncmp(section, "task.", 5) == 0 && section[5])
        return task_key(x, find_or_add_task(l, section + 5), name, value);
    ctx_error(x, "unknown section [%s] (expected [lesson] or [task.NAME])", section);
    return 0;
}

/* Hands the held-back key to apply_key. */
static int flush_pending(struct ini_ctx *x)
{
    if (!x->p_key)
        return 1;
    int ok = apply_key(x, x->p_section, x->p_key, x->p_value);
    free(x->p_section);
    free(x->p_key);
    free(x->p_value);
    x->p_section = x->p_key = x->p_value = NULL;
    return ok;
}

static int on_ini_key(void *user, const char *section, const char *name, const char *value)
{
    struct ini_ctx *x = user;
    if (!name) /* a section header alone */
        return 1;
    /* inih calls again with the same section and key for an indented continuation line. */
    if (x->p_key && strcmp(x->p_key, name) == 0 && strcmp(x->p_section, section) == 0 &&
        x->line > x->p_line) {
        char *joined = value[0] == SPLIT_MARK ? xasprintf("%s%s", x->p_value, value + 1)
                                              : xasprintf("%s %s", x->p_value, value);
        free(x->p_value);
        x->p_value = joined;
        return 1;
    }
    if (!flush_pending(x))
        return 0;
    x->p_section = xstrdup(section);
    x->p_key = xstrdup(name);
    x->p_value = xstrdup(value);
    x->p_line = x->line;
    return 1;
}

/* inih's reader: one line of x->text per call. */
static char *read_ini_line(char *buf, int size, void *user)
{
    struct ini_ctx *x = user;
    if (!*x->pos)
        return NULL;
    const char *nl = strchr(x->pos, '\n');
    size_t len = nl ? (size_t)(nl - x->pos) + 1 : strlen(x->pos);
    if (len > (size_t)size - 1)
        len = (size_t)size - 1;
    memcpy(buf, x->pos, len);
    buf[len] = 0;
    x->pos += len;
    x->line++;
    /* inih says nothing about a section without keys, yet [task.T] alone is a task. */
    const char *p = buf;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *close = strchr(p, ']');
    if (strncmp(p, "[task.", 6) == 0 && close && close > p + 6) {
        char *name = xcalloc((size_t)(close - p - 6) + 1, 1);
        memcpy(name, p + 6, (size_t)(close - p - 6));
        find_or_add_task(x->lesson, name);
        free(name);
    }
    return buf;
}

/* The file with every line longer than INI_CHUNK cut at places where neither side is a blank
 * (inih trims values), continuation chunks indented and marked. */
static char *split_long_lines(const char *raw, int **orig_line)
{
    size_t n = strlen(raw), cap = 2 * n + 64, o = 0, lines = 0, lcap = 64;
    char *out = xcalloc(cap, 1);
    int *map = xcalloc(lcap, sizeof *map);
    int src_line = 1;
    const char *p = raw;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        size_t start = 0, first = 1;
        do {
            size_t take = len - start;
            if (take > INI_CHUNK) {
                take = INI_CHUNK;
                while (take > 1 && (p[start + take - 1] == ' ' || p[start + take] == ' '))
                    take--;
            }
            if (o + take + 8 > cap)
                out = xrealloc(out, cap *= 2);
            if (!first) {
                out[o++] = ' ';
                out[o++] = SPLIT_MARK;
            }
            memcpy(out + o, p + start, take);
            o += take;
            out[o++] = '\n';
            if (lines == lcap)
                map = xrealloc(map, (lcap *= 2) * sizeof *map);
            map[lines++] = src_line;
            start += take;
            first = 0;
        } while (start < len);
        src_line++;
        p += len + (nl ? 1 : 0);
    }
    out[o] = 0;
    if (lines == lcap)
        map = xrealloc(map, (lcap + 1) * sizeof *map);
    map[lines] = src_line;
    *orig_line = map;
    return out;
}

static void task_free(struct task *t)
{
    task_result_free(t->result);
    free(t->name);
    free(t->id);
    free(t->title);
    free(t->speed_case);
    free(t->sanitize_case);
    free(t->exercise_path);
    strlist_free(&t->sanitizers);
    strlist_free(&t->forbid);
    strlist_free(&t->allow);
    strlist_free(&t->hints);
    free(t);
}

static void lesson_fail(struct course *c, struct lesson *l, int line, const char *what)
{
    const char *rel = l->ini_path + strlen(c->root) + 1;
    free(l->error);
    l->error = line > 0 ? xasprintf("%s:%d: %s", rel, line, what) : xasprintf("%s: %s", rel, what);
    strlist_push(&c->errors, l->error);
    for (size_t i = 0; i < l->n_tasks; i++)
        task_free(l->tasks[i]);
    free(l->tasks);
    l->tasks = NULL;
    l->n_tasks = 0;
}

static void load_ini(struct course *c, struct lesson *l)
{
    char *raw = read_text_file(l->ini_path, (size_t)64 << 20);
    if (!raw) {
        lesson_fail(c, l, 0, strerror(errno));
        return;
    }
    struct ini_ctx x = {.lesson = l};
    char *text = split_long_lines(raw, &x.orig_line);
    free(raw);
    x.text = x.pos = text;
    int rc = ini_parse_stream(read_ini_line, &x, on_ini_key, &x);
    if (rc == 0 && !flush_pending(&x))
        rc = -2;
    flush_pending(&x); /* frees what an earlier error left held back */
    if (x.error)
        lesson_fail(c, l, x.orig_line[x.error_line > 0 ? x.error_line - 1 : 0], x.error);
    else if (rc > 0)
        lesson_fail(c, l, x.orig_line[rc - 1], "syntax error (expected key = value or [section])");
    else if (l->n_tasks == 0)
        lesson_fail(c, l, 0, "no [task.NAME] section");
    else
        for (size_t i = 0; i < l->n_tasks; i++) {
            struct task *t = l->tasks[i];
            if (!t->title[0])
                set_str(&t->title, t->name);
            /* memcheck always runs first; lesson.ini adds the others. */
            struct strlist tools = {0};
            strlist_push(&tools, "memcheck");
            for (size_t k = 0; k < t->sanitizers.n; k++)
                strlist_push(&tools, t->sanitizers.v[k]);
            strlist_free(&t->sanitizers);
            t->sanitizers = tools;
        }
    free(x.error);
    free(x.orig_line);
    free(text);
}

static int has_harness(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        found = n > 11 && strcmp(e->d_name + n - 11, "_harness.cu") == 0;
    }
    closedir(d);
    return found;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_lesson(struct course *c, const char *id)
{
    char *dir = xasprintf("%s/lessons/%s", c->root, id);
    char *ini = xasprintf("%s/lesson.ini", dir);
    if (!is_file(ini) && !has_harness(dir)) {
        free(dir);
        free(ini);
        return;
    }
    struct lesson *l = xcalloc(1, sizeof *l);
    l->course = c;
    l->id = xstrdup(id);
    l->title = xstrdup("");
    l->dir = dir;
    l->ini_path = ini;
    l->notes_path = xstrdup("README.md");
    c->lessons = xrealloc(c->lessons, (c->n_lessons + 1) * sizeof *c->lessons);
    c->lessons[c->n_lessons++] = l;

    if (!is_file(ini))
        lesson_fail(c, l, 0, "missing (the lesson has task harnesses but no lesson.ini)");
    else
        load_ini(c, l);
    if (!l->title[0])
        set_str(&l->title, l->id);
    char *notes = l->notes_path[0] == '/' ? xstrdup(l->notes_path)
                                          : xasprintf("%s/%s", dir, l->notes_path);
    set_str(&l->notes_path, is_file(notes) ? notes : "");
    free(notes);
}

struct course *course_load(const char *root)
{
    struct course *c = xcalloc(1, sizeof *c);
    char abs[PATH_MAX];
    c->root = xstrdup(realpath(root, abs) ? abs : root);
    char *lessons = xasprintf("%s/lessons", c->root);
    DIR *d = is_dir(lessons) ? opendir(lessons) : NULL;
    if (!d) {
        strlist_push(&c->errors, "lessons/: no such directory (is --root the course root?)");
        free(lessons);
        return c;
    }
    struct strlist ids = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = xasprintf("%s/%s", lessons, e->d_name);
        if (is_dir(p))
            strlist_push(&ids, e->d_name);
        free(p);
    }
    closedir(d);
    free(lessons);
    qsort(ids.v, ids.n, sizeof *ids.v, cmp_str);
    for (size_t i = 0; i < ids.n; i++)
        load_lesson(c, ids.v[i]);
    strlist_free(&ids);

    for (size_t i = 0; i < c->n_lessons; i++)
        for (size_t k = 0; k < c->lessons[i]->n_tasks; k++) {
            c->all_tasks = xrealloc(c->all_tasks, (c->n_all_tasks + 1) * sizeof *c->all_tasks);
            c->all_tasks[c->n_all_tasks++] = c->lessons[i]->tasks[k];
        }
    return c;
}

void course_free(struct course *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_lessons; i++) {
        struct lesson *l = c->lessons[i];
        for (size_t k = 0; k < l->n_tasks; k++)
            task_free(l->tasks[k]);
        free(l->tasks);
        free(l->id);
        free(l->title);
        free(l->dir);
        free(l->ini_path);
        free(l->notes_path);
        free(l->error);
        free(l);
    }
    free(c->lessons);
    free(c->all_tasks);
    strlist_free(&c->errors);
    free(c->root);
    free(c);
}

/* tui_pager.c — a pager for text the student reads rather than acts on: the lesson's notes
 * (README.md, headings and code blocks set apart), the task's hints (revealed one at a time,
 * as a tutor would give them), the build log (file:line locations and errors highlighted) and
 * what the exercise printed. Lines are word-wrapped to the window at every draw, so a resize
 * re-flows the text instead of cutting it. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_screen.h"

#define PAGER_MAX_BYTES (4u << 20)
#define PAGER_MAX_LINES 100000

const char tui_pager_keys[] =
    "\xe2\x86\x91\xe2\x86\x93/jk scroll  Space/b page  g/G top/end  / search  n/N next/prev  "
    "h next hint  q back";

void tui_pager_free(struct tui_pager *p)
{
    for (size_t i = 0; i < p->n_lines; i++)
        free(p->lines[i]);
    free(p->lines);
    p->lines = NULL;
    p->n_lines = 0;
    p->top = 0;
    p->match = SIZE_MAX;
}

/* Appends one line, with tabs expanded and terminal escapes and other control bytes
 * removed: a build log or a student's output must not be able to drive the terminal. */
static void add_line(struct tui_pager *p, const char *s, size_t len)
{
    if (p->n_lines >= PAGER_MAX_LINES)
        return;
    char *out = malloc(len * 8 + 1);
    char **grown = realloc(p->lines, (p->n_lines + 1) * sizeof *p->lines);
    if (!out || !grown) {
        free(out);
        if (grown)
            p->lines = grown;
        return;
    }
    p->lines = grown;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\t') {
            do
                out[o++] = ' ';
            while (o % 8);
        } else if (c == 0x1b) {
            /* CSI: ESC [ parameters final-byte; anything else: ESC and one byte. */
            if (i + 1 < len && s[i + 1] == '[') {
                i += 2;
                while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    i++;
            } else {
                i++;
            }
        } else if (c >= 0x20 && c != 0x7f) {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
    p->lines[p->n_lines++] = out;
}

static void add_text(struct tui_pager *p, const char *s)
{
    add_line(p, s, strlen(s));
}

/* 0, or -1 with errno. */
static int add_file(struct tui_pager *p, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char *buf = malloc(PAGER_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    size_t len = fread(buf, 1, PAGER_MAX_BYTES, f);
    int truncated = !feof(f);
    fclose(f);
    buf[len] = '\0';
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || buf[i] == '\n') {
            size_t end = i;
            if (end > start && buf[end - 1] == '\r')
                end--;
            if (i < len || end > start)
                add_line(p, buf + start, end - start);
            start = i + 1;
        }
    }
    free(buf);
    if (truncated)
        add_text(p, "[... cut: the file is longer than the pager reads]");
    return 0;
}

static const char *short_path(const struct tui *ui, const char *path)
{
    const char *root = course_root(ui->course);
    size_t n = strlen(root);
    return n && strncmp(path, root, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

static void build_hints(struct tui *ui, const struct task *t)
{
    struct tui_pager *p = &ui->pager;
    size_t n = task_hint_count(t), shown = ui->hints_shown[p->task];
    tui_pager_free(p);
    for (size_t i = 0; i < shown && i < n; i++) {
        char head[64];
        snprintf(head, sizeof head, "# Hint %zu of %zu", i + 1, n);
        add_text(p, head);
        add_text(p, task_hint(t, i));
        add_text(p, "");
    }
    if (shown < n)
        add_text(p, "> press h for the next hint");
    else
        add_text(p, "> that is every hint for this task; n opens the lesson notes");
}

int tui_pager_open(struct tui *ui, enum tui_pager_kind kind)
{
    if (course_task_count(ui->course) == 0) {
        tui_message(ui, TUI_C_WRONG, "no tasks in this course");
        return -1;
    }
    const struct task *t = course_task(ui->course, ui->sel);
    const struct lesson *l = task_lesson(t);
    const struct task_result *r = task_result(t);
    struct tui_pager next = { .kind = kind, .task = ui->sel };

    switch (kind) {
    case TUI_PAGER_NOTES:
        if (!lesson_notes_path(l)[0] || add_file(&next, lesson_notes_path(l)) != 0) {
            tui_message(ui, TUI_C_WRONG, "no notes for %s (README.md missing)", lesson_id(l));
            return -1;
        }
        snprintf(next.title, sizeof next.title, "notes: %s",
                 short_path(ui, lesson_notes_path(l)));
        break;
    case TUI_PAGER_HINTS:
        if (task_hint_count(t) == 0) {
            tui_message(ui, TUI_C_NORMAL, "%s has no hints; n opens the lesson notes",
                        task_id(t));
            return -1;
        }
        if (ui->hints_shown[ui->sel] == 0)
            ui->hints_shown[ui->sel] = 1;
        snprintf(next.title, sizeof next.title, "hints: %s", task_id(t));
        break;
    case TUI_PAGER_BUILD_LOG:
        if (!r || !result_build_log_path(r)[0] || add_file(&next, result_build_log_path(r)) != 0) {
            tui_message(ui, TUI_C_NORMAL, "no build log for %s yet: Enter grades it", task_id(t));
            tui_pager_free(&next);
            return -1;
        }
        if (next.n_lines == 0)
            add_text(&next, "(the build printed nothing)");
        snprintf(next.title, sizeof next.title, "build log: %s", task_id(t));
        break;
    case TUI_PAGER_OUTPUT: {
        const char *paths[2] = { r ? result_stdout_path(r) : "", r ? result_stderr_path(r) : "" };
        static const char *names[2] = { "stdout", "stderr" };
        int any = 0;
        for (int i = 0; i < 2; i++) {
            if (!paths[i][0])
                continue;
            char head[64];
            snprintf(head, sizeof head, "# the exercise's %s", names[i]);
            add_text(&next, head);
            if (add_file(&next, paths[i]) == 0)
                any = 1;
            add_text(&next, "");
        }
        if (!any) {
            tui_message(ui, TUI_C_NORMAL, "no output of %s yet: Enter grades it", task_id(t));
            tui_pager_free(&next);
            return -1;
        }
        snprintf(next.title, sizeof next.title, "output: %s (printed, never trusted)",
                 task_id(t));
        break;
    }
    case TUI_PAGER_SANITIZER: {
        int any = 0;
        for (size_t i = 0; r && i < result_sanitizer_run_count(r); i++) {
            const struct sanitizer_run *run = result_sanitizer_run(r, i);
            char head[160];
            snprintf(head, sizeof head, "# %s: %s", run->tool, sanitizer_status_name(run->status));
            add_text(&next, head);
            if (run->note[0])
                add_text(&next, run->note);
            if (run->log_path[0] && add_file(&next, run->log_path) == 0)
                any = 1;
            add_text(&next, "");
        }
        if (!any) {
            tui_message(ui, TUI_C_NORMAL,
                        "no compute-sanitizer log for %s: it runs once every case passes",
                        task_id(t));
            tui_pager_free(&next);
            return -1;
        }
        snprintf(next.title, sizeof next.title, "compute-sanitizer: %s", task_id(t));
        break;
    }
    }
    next.match = SIZE_MAX;

    tui_pager_free(&ui->pager);
    ui->pager = next;
    if (kind == TUI_PAGER_HINTS)
        build_hints(ui, t);
    if (tui_top(ui) != TUI_SCREEN_PAGER)
        tui_push(ui, TUI_SCREEN_PAGER);
    return 0;
}

/* --------------------------------------------------------------- drawing */
/* Length of a leading "file:line[:col]:" or nvcc's "file(line):" location, else 0. */
static size_t location_len(const char *s)
{
    size_t i = 0;
    while (s[i] && s[i] != ' ' && s[i] != ':' && s[i] != '(')
        i++;
    if (i == 0)
        return 0;
    if (s[i] == '(') {
        size_t j = i + 1;
        while (isdigit((unsigned char)s[j]))
            j++;
        return j > i + 1 && s[j] == ')' && s[j + 1] == ':' ? j + 1 : 0;
    }
    if (s[i] != ':' || !isdigit((unsigned char)s[i + 1]))
        return 0;
    size_t j = i + 1;
    while (isdigit((unsigned char)s[j]) || (s[j] == ':' && isdigit((unsigned char)s[j + 1])))
        j++;
    return s[j] == ':' ? j : 0;
}

struct style {
    enum tui_role role;
    size_t loc;          /* bytes at the start drawn as a location */
};

/* How a raw line looks; *in_code tracks fenced code blocks of the notes. */
static struct style line_style(const struct tui_pager *p, const char *s, int *in_code)
{
    struct style st = { TUI_C_NORMAL, 0 };
    if (p->kind == TUI_PAGER_NOTES || p->kind == TUI_PAGER_HINTS || p->kind == TUI_PAGER_OUTPUT) {
        if (strncmp(s, "```", 3) == 0) {
            *in_code = !*in_code;
            st.role = TUI_C_DIM;
        } else if (*in_code || strncmp(s, "    ", 4) == 0) {
            st.role = TUI_C_CODE;
        } else if (s[0] == '#') {
            st.role = TUI_C_HEADING;
        } else if (s[0] == '>') {
            st.role = TUI_C_DIM;
        }
        return st;
    }
    if (p->kind == TUI_PAGER_SANITIZER) {
        if (s[0] == '#')
            st.role = TUI_C_HEADING;
        else if (strstr(s, "Invalid") || strstr(s, "Race reported") || strstr(s, "ERROR") ||
                 strstr(s, "Barrier error") || strstr(s, "Uninitialized"))
            st.role = TUI_C_WRONG;
        else if (strstr(s, "========="))
            st.role = TUI_C_DIM;
        return st;
    }
    st.loc = location_len(s);
    if (strstr(s, "error"))
        st.role = TUI_C_WRONG;
    else if (strstr(s, "warning"))
        st.role = TUI_C_WARN;
    else if (st.loc == 0)
        st.role = TUI_C_NORMAL;
    return st;
}

void tui_pager_draw(struct tui *ui)
{
    struct tui_pager *p = &ui->pager;
    int y0 = 1, height = LINES - 3, width = COLS - 2;
    /* Count the wrapped rows first, so the window can be clamped to the text. */
    size_t rows = 0;
    for (size_t i = 0; i < p->n_lines; i++) {
        const char *s = p->lines[i];
        do {
            int used;
            size_t len = tui_wrap(s, width, &used);
            s += len;
            rows++;
        } while (*s);
    }
    p->rows = rows;
    if (p->top + (size_t)height > rows)
        p->top = rows > (size_t)height ? rows - (size_t)height : 0;

    size_t row = 0;
    int in_code = 0;
    for (size_t i = 0; i < p->n_lines && row < p->top + (size_t)height; i++) {
        const char *s = p->lines[i];
        struct style st = line_style(p, s, &in_code);
        attr_t hit = i == p->match ? A_REVERSE : 0;
        int first = 1;
        do {
            int used;
            size_t len = tui_wrap(s, width, &used);
            if (row >= p->top) {
                int y = y0 + (int)(row - p->top);
                char buf[2048];
                size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
                memcpy(buf, s, n);
                buf[n] = '\0';
                size_t loc = first && st.loc < n ? st.loc : 0;
                int x = 1;
                if (loc) {
                    char head[512];
                    size_t hn = loc < sizeof head - 1 ? loc : sizeof head - 1;
                    memcpy(head, buf, hn);
                    head[hn] = '\0';
                    x += tui_put(y, x, width, TUI_C_LOCATION, hit, head);
                }
                tui_put(y, x, width - (x - 1), st.role, hit, buf + loc);
            }
            s += len;
            row++;
            first = 0;
        } while (*s);
    }

    int y = LINES - 2;
    if (p->typing) {
        tui_putf(y, 1, COLS - 2, TUI_C_KEY, 0, "/%s_", p->query);
        tui_put(y, COLS - 28, 27, TUI_C_DIM, 0, "Enter: find   Esc: cancel");
        return;
    }
    size_t last = p->top + (size_t)height < rows ? p->top + (size_t)height : rows;
    tui_putf(y, 1, COLS - 2, TUI_C_DIM, 0, "rows %zu-%zu of %zu  %3.0f%%%s%s", rows ? p->top + 1 : 0,
             last, rows, rows ? 100.0 * (double)last / (double)rows : 100.0,
             p->query[0] ? "   search: " : "", p->query);
}

/* The wrapped row at which raw line `line` starts. */
static size_t row_of_line(const struct tui_pager *p, size_t line)
{
    size_t rows = 0;
    for (size_t i = 0; i < line && i < p->n_lines; i++) {
        const char *s = p->lines[i];
        do {
            int used;
            s += tui_wrap(s, COLS - 2, &used);
            rows++;
        } while (*s);
    }
    return rows;
}

/* Moves to the next (dir > 0) or previous line holding the query, case-insensitively,
 * wrapping around the text; a message when there is none. */
static void find(struct tui *ui, int dir)
{
    struct tui_pager *p = &ui->pager;
    if (!p->query[0] || p->n_lines == 0)
        return;
    size_t from = p->match != SIZE_MAX ? p->match : SIZE_MAX;
    for (size_t k = 1; k <= p->n_lines; k++) {
        size_t i;
        if (from == SIZE_MAX)
            i = dir > 0 ? k - 1 : p->n_lines - k;
        else
            i = dir > 0 ? (from + k) % p->n_lines : (from + p->n_lines - k) % p->n_lines;
        if (strcasestr(p->lines[i], p->query)) {
            p->match = i;
            p->top = row_of_line(p, i);
            p->top = p->top > 2 ? p->top - 2 : 0;   /* a little context above the match */
            return;
        }
    }
    p->match = SIZE_MAX;
    tui_message(ui, TUI_C_WRONG, "not found: %s", p->query);
}

/* The search prompt owns every key until Enter or Esc. */
static enum tui_action prompt_key(struct tui *ui, int ch)
{
    struct tui_pager *p = &ui->pager;
    size_t len = strlen(p->query);
    if (ch == 27) {
        p->typing = 0;
        p->query[0] = '\0';
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        p->typing = 0;
        p->match = SIZE_MAX;
        find(ui, 1);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len > 0)
            p->query[len - 1] = '\0';
    } else if (ch >= ' ' && ch < 256 && ch != 127 && len + 1 < sizeof p->query) {
        p->query[len] = (char)ch;
        p->query[len + 1] = '\0';
    }
    return TUI_REDRAW;
}

enum tui_action tui_pager_key(struct tui *ui, int ch)
{
    struct tui_pager *p = &ui->pager;
    size_t page = LINES > 4 ? (size_t)LINES - 4 : 1;
    size_t was = p->top;
    if (p->typing)
        return prompt_key(ui, ch);
    switch (ch) {
    case '/':
        p->typing = 1;
        p->query[0] = '\0';
        return TUI_REDRAW;
    case 'n':
    case 'N':
        /* Without a search, n is the global "notes" key. */
        if (!p->query[0])
            return TUI_UNHANDLED;
        find(ui, ch == 'n' ? 1 : -1);
        return TUI_REDRAW;
    case KEY_UP:
    case 'k':
        if (p->top > 0)
            p->top--;
        break;
    case KEY_DOWN:
    case 'j':
    case '\n':
    case '\r':
        p->top++;
        break;
    case KEY_PPAGE:
    case 'b':
        p->top = p->top > page ? p->top - page : 0;
        break;
    case KEY_NPAGE:
    case ' ':
    case 'f':
        p->top += page;
        break;
    case KEY_HOME:
    case 'g':
        p->top = 0;
        break;
    case KEY_END:
    case 'G':
        p->top = p->rows;
        break;
    case 'h':
        if (p->kind != TUI_PAGER_HINTS || p->task != ui->sel)
            return TUI_UNHANDLED;
        if (ui->hints_shown[p->task] < task_hint_count(course_task(ui->course, p->task))) {
            ui->hints_shown[p->task]++;
            build_hints(ui, course_task(ui->course, p->task));
            p->top = p->rows;
        } else {
            tui_message(ui, TUI_C_NORMAL, "that was the last hint");
        }
        return TUI_REDRAW;
    case KEY_LEFT:
    case 'q':
    case 27:
        tui_pop(ui);
        return TUI_REDRAW;
    default:
        return TUI_UNHANDLED;
    }
    /* p->top past the end is pulled back by the next draw. */
    return p->top == was ? TUI_HANDLED : TUI_REDRAW;
}

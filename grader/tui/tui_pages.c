/* tui_pages.c — what each pager shows: the lesson's notes (Markdown, with where its HTML page
 * is), the hints revealed so far (one more each time h is pressed, as a tutor would give
 * them), what the exercise printed, the sanitizer's log. The build log is tui_log.c's. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui_screen.h"
#include "util.h"

#define NOTES_MAX_BYTES (4u << 20)

static int load_notes(struct tui *ui, struct tui_pager *p, const struct lesson *l)
{
    const char *path = lesson_notes_path(l);
    FILE *f = path[0] ? fopen(path, "rb") : NULL;
    if (!f) {
        tui_message(ui, TUI_C_WRONG, "no notes for %s (README.md missing)", lesson_id(l));
        return -1;
    }
    p->markdown = xcalloc(NOTES_MAX_BYTES + 1, 1);
    p->markdown_len = fread(p->markdown, 1, NOTES_MAX_BYTES, f);
    fclose(f);
    snprintf(p->base, sizeof p->base, "%s/", tui_relative(ui, lesson_dir(l)));
    char *page = xasprintf("%s/build/notes/%s/index.html", course_root(ui->course), lesson_id(l));
    snprintf(p->html, sizeof p->html, "%s (%s)", tui_relative(ui, page),
             access(page, R_OK) == 0 ? "built" : "not built yet: make notes");
    free(page);
    p->width = -1;   /* laid out at the first draw, for the window's width */
    snprintf(p->title, sizeof p->title, "notes: %s", tui_relative(ui, path));
    return 0;
}

static void fill_hints(struct tui *ui, struct tui_pager *p, const struct task *t)
{
    size_t n = task_hint_count(t), shown = ui->hints_shown[p->task];
    tui_lines_clear(p);
    for (size_t i = 0; i < shown && i < n; i++) {
        tui_lines_addf(p, TUI_C_HEADING, "Hint %zu of %zu", i + 1, n);
        tui_lines_addf(p, TUI_C_NORMAL, "%s", task_hint(t, i));
        tui_lines_add(p, "", 0, TUI_C_NORMAL);
    }
    if (shown < n)
        tui_lines_addf(p, TUI_C_DIM, "press h for the next hint");
    else
        tui_lines_addf(p, TUI_C_DIM, "that is every hint for this task; n opens the lesson notes");
    snprintf(p->title, sizeof p->title, "hints: %s", task_id(t));
}

/* h on the hints already shown reveals one more; elsewhere it shows those revealed so far
 * (the first one at least). */
static int load_hints(struct tui *ui, struct tui_pager *p, const struct task *t)
{
    size_t *shown = &ui->hints_shown[ui->sel];
    if (task_hint_count(t) == 0) {
        tui_message(ui, TUI_C_NORMAL, "%s has no hints; n opens the lesson notes", task_id(t));
        return -1;
    }
    int again = tui_top(ui) == TUI_SCREEN_PAGER && ui->pager.kind == TUI_PAGER_HINTS &&
                ui->pager.task == ui->sel;
    if (*shown == 0)
        *shown = 1;
    else if (again && *shown < task_hint_count(t))
        (*shown)++;
    else if (again)
        tui_message(ui, TUI_C_NORMAL, "that was the last hint");
    fill_hints(ui, p, t);
    p->top = again ? SIZE_MAX / 2 : 0;   /* the newest hint in view */
    return 0;
}

static int load_output(struct tui *ui, struct tui_pager *p, const struct task *t,
                       const struct task_result *r)
{
    const char *paths[2] = { r ? result_stdout_path(r) : "", r ? result_stderr_path(r) : "" };
    static const char *const names[2] = { "stdout", "stderr" };
    int any = 0;
    for (int i = 0; i < 2; i++) {
        if (!paths[i][0])
            continue;
        tui_lines_addf(p, TUI_C_HEADING, "the exercise's %s", names[i]);
        any |= tui_lines_file(p, paths[i], NULL) == 0;
        tui_lines_add(p, "", 0, TUI_C_NORMAL);
    }
    if (!any) {
        tui_message(ui, TUI_C_NORMAL, "no output of %s yet: Enter grades it", task_id(t));
        return -1;
    }
    snprintf(p->title, sizeof p->title, "output: %s (printed, never trusted)", task_id(t));
    return 0;
}

static enum tui_role sanitizer_class(const char *s, size_t *loc)
{
    (void)loc;
    if (strstr(s, "Invalid") || strstr(s, "Race reported") || strstr(s, "ERROR") ||
        strstr(s, "Barrier error") || strstr(s, "Uninitialized"))
        return TUI_C_WRONG;
    return strstr(s, "=========") ? TUI_C_DIM : TUI_C_NORMAL;
}

static int load_sanitizer(struct tui *ui, struct tui_pager *p, const struct task *t,
                          const struct task_result *r)
{
    int any = 0;
    for (size_t i = 0; r && i < result_sanitizer_run_count(r); i++) {
        const struct sanitizer_run *run = result_sanitizer_run(r, i);
        tui_lines_addf(p, TUI_C_HEADING, "%s: %s", run->tool, sanitizer_status_name(run->status));
        if (run->note[0])
            tui_lines_addf(p, TUI_C_NORMAL, "%s", run->note);
        if (run->log_path[0] && tui_lines_file(p, run->log_path, sanitizer_class) == 0)
            any = 1;
        tui_lines_add(p, "", 0, TUI_C_NORMAL);
    }
    if (!any) {
        tui_message(ui, TUI_C_NORMAL,
                    "no compute-sanitizer log for %s: it runs once every case passes", task_id(t));
        return -1;
    }
    snprintf(p->title, sizeof p->title, "compute-sanitizer: %s", task_id(t));
    return 0;
}

static int load(struct tui *ui, struct tui_pager *p, enum tui_pager_kind kind)
{
    const struct task *t = course_task(ui->course, ui->sel);
    const struct task_result *r = task_result(t);
    switch (kind) {
    case TUI_PAGER_NOTES:
        return load_notes(ui, p, task_lesson(t));
    case TUI_PAGER_HINTS:
        return load_hints(ui, p, t);
    case TUI_PAGER_BUILD_LOG:
        return tui_log_load(ui, p, t, r);
    case TUI_PAGER_OUTPUT:
        return load_output(ui, p, t, r);
    case TUI_PAGER_SANITIZER:
        return load_sanitizer(ui, p, t, r);
    }
    return -1;
}

int tui_pages_open(struct tui *ui, enum tui_pager_kind kind)
{
    if (course_task_count(ui->course) == 0) {
        tui_message(ui, TUI_C_WRONG, "no tasks in this course");
        return -1;
    }
    struct tui_pager next = { .kind = kind, .task = ui->sel, .match = SIZE_MAX };
    /* Loaded aside first, so a failure leaves the pager that is shown as it was. */
    if (load(ui, &next, kind) != 0) {
        tui_pager_free(&next);
        return -1;
    }
    tui_pager_free(&ui->pager);
    ui->pager = next;
    return kind == TUI_PAGER_BUILD_LOG ? TUI_SCREEN_LOG : TUI_SCREEN_PAGER;
}

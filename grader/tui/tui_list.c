/* tui_list.c — the course list: every lesson, its tasks, each task's outcome, score, cases
 * and speed, a progress bar for the course, and the selected task's summary at the bottom.
 *
 *   Progress  ██████████░░░░░░░░░░░░  20 / 45 points   2 of 5 tasks passed
 *     Task                                    Outcome            Score  Cases  Speed
 *   03-naive-matmul  Naive matrix multiplication                  10/10
 *    ✓ matmul_naive   C = A·B, one thread …  passed             10/10    8/8  1.02×
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui_screen.h"
#include "util.h"

const char tui_list_keys[] =
    "\xe2\x86\x91\xe2\x86\x93 move  / find  Enter grade  \xe2\x86\x92 details  a all  w watch  "
    "e edit  r reset  n notes  ? help  q quit";

enum row_kind { ROW_LESSON, ROW_ERROR, ROW_TASK };

struct row {
    enum row_kind kind;
    const struct lesson *lesson;
    size_t task;                 /* course index, ROW_TASK only */
};

/* The list's rows: a header per lesson, its load error if any, then its tasks. */
static struct row *build_rows(const struct course *c, size_t *n_rows)
{
    size_t nl = course_lesson_count(c);
    struct row *rows = calloc(2 * nl + course_task_count(c) + 1, sizeof *rows);
    size_t n = 0, task = 0;
    if (!rows) {
        *n_rows = 0;
        return NULL;
    }
    for (size_t i = 0; i < nl; i++) {
        const struct lesson *l = course_lesson(c, i);
        rows[n++] = (struct row){ ROW_LESSON, l, 0 };
        if (lesson_error(l))
            rows[n++] = (struct row){ ROW_ERROR, l, 0 };
        for (size_t k = 0; k < lesson_task_count(l); k++)
            rows[n++] = (struct row){ ROW_TASK, l, task++ };
    }
    *n_rows = n;
    return rows;
}

static size_t row_of_task(const struct row *rows, size_t n, size_t task)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].kind == ROW_TASK && rows[i].task == task)
            return i;
    return 0;
}

static void format_points(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.4g", v);
}

/* --------------------------------------------------------------- columns */
struct columns {
    int name, outcome, score, cases, speed;   /* x of each column; 0 = not shown */
    int name_w, outcome_w;
};

static struct columns layout(void)
{
    struct columns k = { .name = 3, .outcome_w = 18 };
    int right = COLS - 2; /* the last column is the scroll markers', a blank before it */
    if (COLS >= 80) {
        k.speed = right - 7;
        k.cases = k.speed - 8;
        right = k.cases;
    }
    k.score = right - 9;
    k.outcome = k.score - k.outcome_w - 1;
    k.name_w = k.outcome - k.name - 1;
    return k;
}

static void draw_header(int y, const struct columns *k)
{
    tui_put(y, k->name + 2, k->name_w, TUI_C_DIM, A_UNDERLINE, "Task");
    tui_put(y, k->outcome, k->outcome_w, TUI_C_DIM, A_UNDERLINE, "Outcome");
    tui_put(y, k->score + 4, 5, TUI_C_DIM, A_UNDERLINE, "Score");
    if (k->cases) {
        tui_put(y, k->cases + 2, 5, TUI_C_DIM, A_UNDERLINE, "Cases");
        tui_put(y, k->speed + 2, 5, TUI_C_DIM, A_UNDERLINE, "Speed");
    }
}

/* Right-aligned in a field ending at x + w. */
static void put_right(int y, int x, int w, enum tui_role r, attr_t extra, const char *s)
{
    int sw = tui_width(s);
    if (sw > w)
        sw = w;
    tui_put(y, x + w - sw, sw, r, extra, s);
}

static void draw_lesson_row(struct tui *ui, int y, const struct lesson *l,
                            const struct columns *k)
{
    /* a skipped task keeps its points at stake: the maximum never shrinks as tasks skip */
    double got = 0, max = 0;
    for (size_t i = 0; i < lesson_task_count(l); i++) {
        const struct task *t = lesson_task(l, i);
        got += task_score(t);
        max += task_weight(t);
    }
    int x = 1 + tui_put(y, 1, k->outcome - 2, TUI_C_LESSON, 0, lesson_id(l));
    if (strcmp(lesson_title(l), lesson_id(l)) != 0)
        tui_put(y, x + 2, k->outcome - x - 3, TUI_C_LESSON, A_DIM, lesson_title(l));
    if (lesson_task_count(l)) {
        char a[32], b[32];
        format_points(a, sizeof a, got);
        format_points(b, sizeof b, max);
        char s[80];
        snprintf(s, sizeof s, "%s/%s", a, b);
        put_right(y, k->score, 9, TUI_C_LESSON, 0, s);
    }
    (void)ui;
}

static void draw_task_row(struct tui *ui, int y, size_t index, const struct columns *k,
                          int selected)
{
    const struct task *t = course_task(ui->course, index);
    const struct task_result *r = task_result(t);
    enum grader_outcome o = task_outcome(t);
    attr_t sel = selected ? A_REVERSE : 0;
    if (selected)
        tui_fill(y, 0, TUI_C_NORMAL, sel);

    struct grade_queue_status st;
    int is_running = tui_is_running(ui, index, &st);
    int is_queued = grade_queue_has(ui->queue, index);

    const char *glyph = is_running ? tui_spinner(ui->tick, ui->utf8)
                                   : tui_outcome_glyph(o, ui->utf8);
    tui_put(y, k->name, 1, is_running ? TUI_C_RUNNING : tui_outcome_role(o), sel, glyph);

    int x = k->name + 2;
    int used = tui_put(y, x, k->name_w - 2, TUI_C_NORMAL, sel | A_BOLD, task_name(t));
    if (strcmp(task_title(t), task_name(t)) != 0 && used + 4 < k->name_w - 2)
        tui_put(y, x + used + 2, k->name_w - 2 - used - 2, TUI_C_DIM, sel, task_title(t));

    char cell[64];
    if (is_running) {
        snprintf(cell, sizeof cell, "%s", grade_step_name(st.step));
        tui_put(y, k->outcome, k->outcome_w, TUI_C_RUNNING, sel, cell);
    } else if (is_queued) {
        tui_put(y, k->outcome, k->outcome_w, TUI_C_RUNNING, sel | A_DIM, "queued");
    } else {
        snprintf(cell, sizeof cell, "%s%s", outcome_name(o), tui_is_stale(t) ? " *" : "");
        tui_put(y, k->outcome, k->outcome_w, tui_outcome_role(o), sel, cell);
    }

    char a[32], b[32];
    format_points(b, sizeof b, task_weight(t));
    if (o == OUTCOME_SKIPPED) {
        snprintf(cell, sizeof cell, "-/%s", b);
    } else if (r) {
        format_points(a, sizeof a, task_score(t));
        snprintf(cell, sizeof cell, "%s/%s", a, b);
    } else {
        snprintf(cell, sizeof cell, "%s", b);
    }
    put_right(y, k->score, 9, r ? tui_outcome_role(o) : TUI_C_DIM, sel, cell);

    if (!k->cases || !r)
        return;
    if (result_case_count(r)) {
        snprintf(cell, sizeof cell, "%zu/%zu", result_cases_passed(r), result_case_count(r));
        put_right(y, k->cases, 7,
                  result_cases_passed(r) == result_case_count(r) ? TUI_C_NORMAL : TUI_C_WRONG,
                  sel, cell);
    }
    if (result_speed_measured(r)) {
        double ratio = result_speed_ratio(r);
        char rt[24];
        snprintf(cell, sizeof cell, "%s%s", ratio_text(ratio, rt, sizeof rt),
                 ui->utf8 ? "\xc3\x97" : "x");
        put_right(y, k->speed, 7,
                  ratio >= result_speed_threshold(r) ? TUI_C_NORMAL : TUI_C_WARN, sel, cell);
    }
}

static void draw_progress(struct tui *ui, int y)
{
    double got = 0, max = 0;
    size_t n = course_task_count(ui->course), passed = 0, graded = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        const struct task *t = course_task(ui->course, i);
        enum grader_outcome o = task_outcome(t);
        graded += o != OUTCOME_NOT_RUN;
        skipped += o == OUTCOME_SKIPPED;
        got += task_score(t);
        max += task_weight(t);
        passed += o == OUTCOME_PASSED;
    }
    int x = 1 + tui_put(y, 1, 10, TUI_C_HEADING, 0, "Progress");
    int bar_w = COLS / 3;
    tui_bar(y, x + 2, bar_w, max > 0 ? got / max : 0, TUI_C_BAR_DONE, TUI_C_BAR_TODO, ui->utf8);
    x += 2 + bar_w + 2;
    if (skipped == n && n > 0) {
        /* Every task skipped: "0 / N points" would say nothing. */
        tui_put(y, x, COLS - x, TUI_C_SKIP, A_BOLD,
                ui->opts->remote_note ? "no GPU on the Slurm node: nothing could be graded"
                                      : "no GPU: nothing could be graded here");
        return;
    }
    char a[32], b[32];
    format_points(a, sizeof a, got);
    format_points(b, sizeof b, max);
    char skips[48] = "";
    if (skipped)
        snprintf(skips, sizeof skips, ", %zu skipped", skipped);
    tui_putf(y, x, COLS - x, TUI_C_NORMAL, A_BOLD,
             "%s / %s points   %zu of %zu passed, %zu graded%s", a, b, passed, n, graded, skips);
}

/* Without a GPU the first screen says so at once, with the probe's reason; or where the runs
 * go instead. */
static int draw_no_gpu(struct tui *ui, int y)
{
    if (ui->opts->remote_note) {
        tui_putf(y, 1, COLS - 2, TUI_C_NORMAL, 0, "%s", ui->opts->remote_note);
        return 1;
    }
    if (!ui->no_gpu[0])
        return 0;
    tui_putf(y, 1, COLS - 2, TUI_C_SKIP, 0,
             "no GPU: %s. Tasks build, then report \"skipped\" (grader doctor tells more)",
             ui->no_gpu);
    return 1;
}

/* The selected task in one line: what happened and what to do next. */
static void draw_summary(struct tui *ui, int y)
{
    tui_fill(y, 0, TUI_C_NORMAL, 0);
    if (course_task_count(ui->course) == 0) {
        tui_put(y, 1, COLS - 2, TUI_C_WRONG, 0,
                "no tasks found: every lessons/<L>/lesson.ini names its tasks as [task.T]");
        return;
    }
    const struct task *t = course_task(ui->course, ui->sel);
    const struct task_result *r = task_result(t);
    int x = 1 + tui_put(y, 1, COLS / 3, TUI_C_NORMAL, A_BOLD, task_id(t));
    x += 2;
    int w = COLS - x - 1;

    struct grade_queue_status st;
    if (tui_is_running(ui, ui->sel, &st)) {
        tui_putf(y, x, w, TUI_C_RUNNING, 0, "%s%s%s for %.0f s", grade_step_name(st.step),
                 st.detail[0] ? " " : "", st.detail, st.elapsed_s);
        return;
    }
    if (grade_queue_has(ui->queue, ui->sel)) {
        tui_put(y, x, w, TUI_C_RUNNING, 0, "queued for grading");
        return;
    }
    if (!r) {
        tui_put(y, x, w, TUI_C_DIM, 0, "not graded yet: Enter grades it, n opens the notes");
        return;
    }
    if (tui_is_stale(t)) {
        x += tui_put(y, x, w, TUI_C_WARN, 0, "* edited since graded, Enter regrades; was ");
        w = COLS - x - 1;
    }
    enum grader_outcome o = result_outcome(r);
    x += tui_put(y, x, w, tui_outcome_role(o), 0, outcome_name(o));
    w = COLS - x - 1;
    char line[768];
    const char *why = tui_reason(o, result_reason(r));
    if (why[0]) {
        snprintf(line, sizeof line, ": %s", why);
    } else if (result_speed_measured(r)) {
        snprintf(line, sizeof line, ": %zu of %zu cases, %.2fx the reference's speed (needs %.2f)",
                 result_cases_passed(r), result_case_count(r), result_speed_ratio(r),
                 result_speed_threshold(r));
    } else {
        snprintf(line, sizeof line, ": %zu of %zu cases", result_cases_passed(r),
                 result_case_count(r));
    }
    tui_put(y, x, w, TUI_C_NORMAL, 0, line);
}

void tui_list_draw(struct tui *ui)
{
    size_t n_rows;
    struct row *rows = build_rows(ui->course, &n_rows);
    struct columns k = layout();
    draw_progress(ui, 1);
    int top_y = 3 + draw_no_gpu(ui, 2), bottom_y = LINES - 4;
    draw_header(top_y - 1, &k);

    size_t height = (size_t)(bottom_y - top_y + 1);
    if (rows && course_task_count(ui->course)) {
        size_t sel_row = row_of_task(rows, n_rows, ui->sel);
        /* Keep the selection in view, and the lesson header above a lesson's first task. */
        size_t want_top = sel_row > 0 && rows[sel_row - 1].kind != ROW_TASK ? sel_row - 1
                                                                           : sel_row;
        if (want_top > 0 && rows[want_top].kind == ROW_ERROR)
            want_top--;
        if (want_top < ui->list_top)
            ui->list_top = want_top;
        if (sel_row >= ui->list_top + height)
            ui->list_top = sel_row - height + 1;
        /* On the last task, the rows below it (a broken lesson's error) come into view too. */
        size_t end_top = n_rows > height ? n_rows - height : 0;
        if (ui->sel + 1 == course_task_count(ui->course) && end_top > ui->list_top &&
            sel_row >= end_top)
            ui->list_top = end_top;
    }
    if (ui->list_top + height > n_rows)
        ui->list_top = n_rows > height ? n_rows - height : 0;

    for (size_t i = 0; i < height && ui->list_top + i < n_rows; i++) {
        const struct row *row = &rows[ui->list_top + i];
        int y = top_y + (int)i;
        switch (row->kind) {
        case ROW_LESSON:
            draw_lesson_row(ui, y, row->lesson, &k);
            break;
        case ROW_ERROR:
            tui_putf(y, k.name, COLS - k.name - 1, TUI_C_FAILURE, 0, "! %s",
                     lesson_error(row->lesson));
            break;
        case ROW_TASK:
            draw_task_row(ui, y, row->task, &k, row->task == ui->sel);
            break;
        }
    }
    if (ui->list_top + height < n_rows)
        tui_put(bottom_y, COLS - 1, 1, TUI_C_DIM, 0, ui->utf8 ? "\xe2\x96\xbc" : "v");
    if (ui->list_top > 0)
        tui_put(top_y, COLS - 1, 1, TUI_C_DIM, 0, ui->utf8 ? "\xe2\x96\xb2" : "^");

    for (int x = 0; x < COLS; x++)
        tui_put(LINES - 3, x, 1, TUI_C_DIM, 0, ui->utf8 ? "\xe2\x94\x80" : "-");
    draw_summary(ui, LINES - 2);
    free(rows);
}

/* First task of the next (dir > 0) or previous lesson that has one. */
static size_t other_lesson(const struct tui *ui, int dir)
{
    size_t n = course_task_count(ui->course);
    const struct lesson *here = task_lesson(course_task(ui->course, ui->sel));
    size_t i = ui->sel;
    if (dir > 0) {
        while (i + 1 < n && task_lesson(course_task(ui->course, i)) == here)
            i++;
        return task_lesson(course_task(ui->course, i)) == here ? ui->sel : i;
    }
    while (i > 0 && task_lesson(course_task(ui->course, i)) == here)
        i--;
    const struct lesson *prev = task_lesson(course_task(ui->course, i));
    if (prev == here)
        return ui->sel;
    while (i > 0 && task_lesson(course_task(ui->course, i - 1)) == prev)
        i--;
    return i;
}

/* The first task from the selected one on (wrapping) whose "lesson/task" holds the query,
 * without regard to case; the selection stays when none does. */
static void find_task(struct tui *ui)
{
    size_t n = course_task_count(ui->course);
    for (size_t k = 0; k < n && ui->find[0]; k++) {
        const struct task *t = course_task(ui->course, (ui->sel + k) % n);
        char id[256];
        snprintf(id, sizeof id, "%s/%s", lesson_id(task_lesson(t)), task_name(t));
        if (strcasestr(id, ui->find)) {
            ui->sel = (ui->sel + k) % n;
            return;
        }
    }
}

/* "/" then letters: the selection jumps to the first task whose name holds them, so that
 * typing a task's name never reaches the keys that grade (a, A, Enter). Enter or Esc ends it,
 * Backspace takes a letter back. */
static enum tui_action find_key(struct tui *ui, int ch)
{
    size_t len = strlen(ui->find);
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 27) {
        ui->finding = 0;
        return TUI_REDRAW;
    }
    if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len > 0)
        ui->find[len - 1] = '\0';
    else if (ch >= 32 && ch < 127 && len + 1 < sizeof ui->find) {
        ui->find[len] = (char)ch;
        ui->find[len + 1] = '\0';
        find_task(ui);
    }
    tui_message(ui, TUI_C_NORMAL, "find: %s_   (Enter or Esc: done)", ui->find);
    return TUI_REDRAW;
}

enum tui_action tui_list_key(struct tui *ui, int ch)
{
    size_t n = course_task_count(ui->course);
    size_t page = LINES > 8 ? (size_t)LINES - 8 : 1;
    if (ui->finding)
        return find_key(ui, ch);
    if (ch == '/') {
        ui->finding = 1;
        ui->find[0] = '\0';
        tui_message(ui, TUI_C_NORMAL, "find: _   (type a task's name; Enter or Esc: done)");
        return TUI_REDRAW;
    }
    if (ch == 'q')
        return TUI_QUIT;
    if (n == 0)
        return TUI_UNHANDLED;
    size_t was = ui->sel;
    switch (ch) {
    case KEY_UP:
    case 'k':
        if (ui->sel > 0)
            ui->sel--;
        break;
    case KEY_DOWN:
    case 'j':
        if (ui->sel + 1 < n)
            ui->sel++;
        break;
    case KEY_PPAGE:
        ui->sel = ui->sel > page ? ui->sel - page : 0;
        break;
    case KEY_NPAGE:
        ui->sel = ui->sel + page < n ? ui->sel + page : n - 1;
        break;
    case KEY_HOME:
    case 'g':
        ui->sel = 0;
        break;
    case KEY_END:
    case 'G':
        ui->sel = n - 1;
        break;
    case 'J':
        ui->sel = other_lesson(ui, 1);
        break;
    case 'K':
        ui->sel = other_lesson(ui, -1);
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        tui_post(ui, TUI_MSG_GRADE, ui->sel);
        return TUI_REDRAW;
    case KEY_RIGHT:
    case 'd':
    case '\t':
        ui->detail_top = 0;
        tui_post(ui, TUI_MSG_PUSH, TUI_SCREEN_TASK);
        return TUI_REDRAW;
    default:
        return TUI_UNHANDLED;
    }
    return ui->sel == was ? TUI_HANDLED : TUI_REDRAW;
}

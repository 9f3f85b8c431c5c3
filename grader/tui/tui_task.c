/* tui_task.c — one task in detail: the outcome and why, every case with its verdict, the
 * first mismatches of a wrong case with the tolerance it was held to, the time against the
 * reference solution as two bars, the sanitizer findings with kernel and file:line, and the
 * compiler's errors. The page is a column of rows scrolled as one; rows outside the window
 * are counted but not painted, so the scroll range is known after every draw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect.h"
#include "tui_screen.h"

const char tui_task_keys[] =
    "\xe2\x86\x91\xe2\x86\x93 scroll  Enter regrade  [ ] prev/next  l log  o output  "
    "e edit  n notes  h hint  q back  ? help";

struct page {
    struct tui *ui;
    size_t row;          /* rows emitted so far */
    int y0, height;
};

/* The screen row for the next page row, or -1 when it is scrolled out of view. */
static int next_row(struct page *p)
{
    size_t r = p->row++;
    if (r < p->ui->detail_top || r >= p->ui->detail_top + (size_t)p->height)
        return -1;
    return p->y0 + (int)(r - p->ui->detail_top);
}

static void blank(struct page *p)
{
    next_row(p);
}

static void heading(struct page *p, const char *s)
{
    int y = next_row(p);
    if (y >= 0)
        tui_put(y, 1, COLS - 2, TUI_C_HEADING, 0, s);
}

/* Text over as many rows as it needs, every row starting at column indent. */
static void wrapped(struct page *p, int indent, enum tui_role r, attr_t extra, const char *s)
{
    int w = COLS - indent - 1;
    do {
        int used;
        size_t len = tui_wrap(s, w, &used);
        int y = next_row(p);
        if (y >= 0) {
            char buf[1024];
            size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
            memcpy(buf, s, n);
            buf[n] = '\0';
            tui_put(y, indent, w, r, extra, buf);
        }
        s += len;
        while (*s == ' ')
            s++;
    } while (*s);
}

/* --------------------------------------------------------------- sections */
static void draw_head(struct page *p, const struct task *t, const struct task_result *r)
{
    struct tui *ui = p->ui;
    int y = next_row(p);
    if (y >= 0) {
        int x = 1 + tui_put(y, 1, COLS / 2, TUI_C_NORMAL, A_BOLD, task_id(t));
        tui_put(y, x + 2, COLS - x - 19, TUI_C_DIM, 0, task_title(t));
        tui_putf(y, COLS - 16, 15, TUI_C_DIM, 0, "%11.4g pts", task_weight(t));
    }
    y = next_row(p);
    struct grade_queue_status st;
    if (tui_is_running(ui, ui->sel, &st)) {
        if (y >= 0)
            tui_putf(y, 1, COLS - 2, TUI_C_RUNNING, 0, "%s %s%s%s  (%.0f s)",
                     tui_spinner(ui->tick, ui->utf8), grade_step_name(st.step),
                     st.detail[0] ? " " : "", st.detail, st.elapsed_s);
        y = next_row(p);
    }
    if (!r) {
        if (y >= 0)
            tui_put(y, 1, COLS - 2, TUI_C_DIM, 0,
                    grade_queue_has(ui->queue, ui->sel) ? "queued for grading"
                                                          : "not graded yet: Enter grades it");
        return;
    }
    enum grader_outcome o = result_outcome(r);
    if (y >= 0) {
        char word[64];
        snprintf(word, sizeof word, " %s ", outcome_name(o));
        int x = 1 + tui_put(y, 1, 24, tui_outcome_role(o), A_REVERSE, word);
        /* a skipped task keeps its points at stake, as in the list: none were won or lost */
        if (o == OUTCOME_SKIPPED)
            tui_putf(y, x + 2, COLS - x - 3, TUI_C_NORMAL, A_BOLD, "- / %.4g points",
                     task_weight(t));
        else
            tui_putf(y, x + 2, COLS - x - 3, TUI_C_NORMAL, A_BOLD, "%.4g / %.4g points",
                     result_score(r), result_max_score(r));
    }
    const char *why = tui_reason(o, result_reason(r));
    if (why[0])
        wrapped(p, 1, tui_outcome_role(o), 0, why);

    char when[64] = "";
    time_t at = (time_t)result_graded_at(r);
    struct tm tm;
    if (at > 0 && localtime_r(&at, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    char line[512];
    int n = snprintf(line, sizeof line, "seed %llu   graded %s in %.1f s",
                     (unsigned long long)result_seed(r), when, result_duration_s(r));
    if (result_signal(r) > 0)
        snprintf(line + n, sizeof line - (size_t)n, "   killed by signal %d", result_signal(r));
    else if (result_exit_status(r) >= 0)
        snprintf(line + n, sizeof line - (size_t)n, "   exercise exit status %d",
                 result_exit_status(r));
    wrapped(p, 1, TUI_C_DIM, 0, line);
    snprintf(line, sizeof line, "your file: %s", tui_relative(ui, task_exercise_path(t)));
    wrapped(p, 1, TUI_C_DIM, 0, line);
}

static void draw_tolerance(struct page *p, const struct task *t)
{
    char line[160];
    if (task_rtol(t) < 0 && task_atol(t) < 0)
        snprintf(line, sizeof line, "tolerance: the harness' own");
    else if (task_atol(t) < 0)
        snprintf(line, sizeof line, "tolerance: rtol %g (lesson.ini)", task_rtol(t));
    else if (task_rtol(t) < 0)
        snprintf(line, sizeof line, "tolerance: atol %g (lesson.ini)", task_atol(t));
    else
        snprintf(line, sizeof line, "tolerance: rtol %g, atol %g (lesson.ini)", task_rtol(t),
                 task_atol(t));
    wrapped(p, 6, TUI_C_DIM, 0, line);
}

static enum tui_role case_role(enum case_status s)
{
    switch (s) {
    case CASE_PASS:
        return TUI_C_PASS;
    case CASE_FAIL:
        return TUI_C_WRONG;
    case CASE_ERROR:
        return TUI_C_FAILURE;
    case CASE_SKIP:
        return TUI_C_SKIP;
    case CASE_NOT_RUN:
        break;
    }
    return TUI_C_NOT_RUN;
}

static void draw_cases(struct page *p, const struct task *t, const struct task_result *r)
{
    heading(p, "Cases");
    size_t n = result_case_count(r);
    if (n == 0) {
        wrapped(p, 3, TUI_C_DIM, 0, "no case ran");
        return;
    }
    /* name, flags, verdict, time, wrong/checked, max errors */
    int xs[] = { 3, 23, 31, 40, 52, 67 };
    int y = next_row(p);
    if (y >= 0) {
        static const char *titles[] = { "case", "", "verdict", "time ms", "wrong/checked",
                                        "max rel err" };
        for (int i = 0; i < 6; i++)
            if (xs[i] < COLS - 2)
                tui_put(y, xs[i], COLS - xs[i] - 1, TUI_C_DIM, A_UNDERLINE, titles[i]);
    }
    int shown_tolerance = 0;
    for (size_t i = 0; i < n; i++) {
        const struct case_result *cr = result_case(r, i);
        y = next_row(p);
        if (y >= 0) {
            tui_put(y, xs[0], xs[1] - xs[0] - 1, TUI_C_NORMAL, 0, cr->name);
            const char *flag = (cr->flags & CASE_FLAG_SPEED) ? "speed"
                               : (cr->flags & CASE_FLAG_SMALL) ? "small" : "";
            tui_put(y, xs[1], xs[2] - xs[1] - 1, TUI_C_DIM, 0, flag);
            tui_put(y, xs[2], xs[3] - xs[2] - 1, case_role(cr->status), 0,
                    case_status_name(cr->status));
            if (cr->time_ms >= 0)
                tui_putf(y, xs[3], xs[4] - xs[3] - 1, TUI_C_NORMAL, 0, "%9.4g", cr->time_ms);
            if (cr->checked >= 0 && xs[4] < COLS - 2)
                tui_putf(y, xs[4], xs[5] - xs[4] - 1, cr->bad > 0 ? TUI_C_WRONG : TUI_C_NORMAL,
                         0, "%lld/%lld", cr->bad < 0 ? 0 : cr->bad, cr->checked);
            if (cr->max_rel_err >= 0 && xs[5] < COLS - 2)
                tui_putf(y, xs[5], COLS - xs[5] - 1, TUI_C_NORMAL, 0, "%.3g", cr->max_rel_err);
        }
        if (cr->status != CASE_FAIL && cr->status != CASE_ERROR)
            continue;
        if (cr->status == CASE_FAIL && !shown_tolerance) {
            draw_tolerance(p, t);
            shown_tolerance = 1;
        }
        if (cr->max_abs_err >= 0) {
            char line[128];
            snprintf(line, sizeof line, "max abs err %.4g, max rel err %.4g", cr->max_abs_err,
                     cr->max_rel_err);
            wrapped(p, 6, TUI_C_DIM, 0, line);
        }
        if (cr->n_mismatches == 0 && cr->first_mismatch[0]) {
            wrapped(p, 6, TUI_C_NORMAL, 0, "first mismatch:");
            wrapped(p, 8, TUI_C_WRONG, 0, cr->first_mismatch);
        } else if (cr->n_mismatches) {
            wrapped(p, 6, TUI_C_NORMAL, 0, "first mismatches (index, expected, got):");
            for (size_t k = 0; k < cr->n_mismatches; k++)
                wrapped(p, 8, TUI_C_WRONG, 0, cr->mismatches[k]);
        }
        if (cr->note[0]) {
            char line[512];
            snprintf(line, sizeof line, "note: %s", cr->note);
            wrapped(p, 6, TUI_C_NORMAL, 0, line);
        }
    }
}

static void speed_bar(struct page *p, const char *label, double ms, double max_ms,
                      enum tui_role role)
{
    int y = next_row(p);
    if (y < 0)
        return;
    int bar_w = COLS - 3 - 11 - 14;
    if (bar_w > 50)
        bar_w = 50;
    tui_put(y, 3, 10, TUI_C_NORMAL, 0, label);
    tui_bar(y, 14, bar_w, max_ms > 0 ? ms / max_ms : 0, role, TUI_C_BAR_TODO, p->ui->utf8);
    tui_putf(y, 15 + bar_w, COLS - 16 - bar_w, TUI_C_NORMAL, 0, "%.4g ms", ms);
}

/* lesson.ini's speed case, else the one the last grading timed (the case --list flags speed). */
static const char *speed_case_of(const struct task *t, const struct task_result *r)
{
    if (task_speed_case(t)[0])
        return task_speed_case(t);
    return r ? result_speed_case(r) : "";
}

static void draw_speed(struct page *p, const struct task *t, const struct task_result *r)
{
    const char *sc = speed_case_of(t, r);
    if (!sc[0] && task_speed_threshold(t) <= 0)
        return;
    blank(p);
    char line[256];
    snprintf(line, sizeof line, "Speed  case %s, must reach %.2fx the reference's speed",
             sc[0] ? sc : "flagged speed by the harness", task_speed_threshold(t));
    heading(p, line);
    if (!r || !result_speed_measured(r)) {
        wrapped(p, 3, TUI_C_DIM, 0,
                r ? "not measured: the speed case must run and pass first" : "not measured yet");
        return;
    }
    double mine = result_time_ms(r), ref = result_ref_time_ms(r);
    double max_ms = mine > ref ? mine : ref;
    double ratio = result_speed_ratio(r);
    int fast = ratio >= result_speed_threshold(r);
    speed_bar(p, "yours", mine, max_ms, fast ? TUI_C_BAR_DONE : TUI_C_WARN);
    speed_bar(p, "reference", ref, max_ms, TUI_C_BAR_REF);
    char rt[24];
    snprintf(line, sizeof line, "ratio %s (reference time / yours): %s",
             ratio_text(ratio, rt, sizeof rt), fast ? "fast enough" : "too slow");
    wrapped(p, 3, fast ? TUI_C_PASS : TUI_C_WARN, 0, line);
    enum ncu_status ncu = result_ncu_status(r);
    if (ncu == NCU_NOT_RUN)
        return;
    if (ncu == NCU_UNAVAILABLE)
        snprintf(line, sizeof line, "cross-check under ncu unavailable: %s", result_ncu_note(r));
    else
        snprintf(line, sizeof line, "under ncu, your kernels took %.3g ms a call: %s",
                 result_ncu_ms(r), ncu_status_name(ncu));
    wrapped(p, 3, ncu == NCU_AGREES ? TUI_C_PASS : ncu == NCU_DISAGREES ? TUI_C_WARN : TUI_C_SKIP,
            0, line);
}

/* The profile digest (grader --profile): the finding first, then the figures as the text
 * report has them, one row each. */
static void draw_profile(struct page *p, const struct task *t, const struct task_result *r)
{
    struct profile_digest *d = r ? profile_digest_task(t, r) : NULL;
    if (!d)
        return;
    blank(p);
    heading(p, "Profile  your kernels against the reference's, under ncu");
    struct strbuf b = {0};
    profile_digest_text(d, "", &b);
    char *text = sb_take(&b), *save = NULL;
    int first = 1;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (first && strncmp(line, "profile: ", 9) == 0)
            line += 9;
        wrapped(p, 3, first ? (d->available ? TUI_C_WARN : TUI_C_SKIP) : TUI_C_DIM, 0, line);
        first = 0;
    }
    free(text);
    profile_digest_free(d);
}

static enum tui_role sanitizer_role(enum sanitizer_status s)
{
    switch (s) {
    case SANITIZER_CLEAN:
        return TUI_C_PASS;
    case SANITIZER_FINDINGS:
        return TUI_C_WARN;
    case SANITIZER_UNAVAILABLE:
        return TUI_C_SKIP;
    case SANITIZER_TIMED_OUT:
    case SANITIZER_FAILED:
        break;
    }
    return TUI_C_FAILURE;
}

static void draw_sanitizers(struct page *p, const struct task *t, const struct task_result *r)
{
    blank(p);
    char line[512];
    int n = snprintf(line, sizeof line, "compute-sanitizer  ");
    for (size_t i = 0; i < task_sanitizer_count(t) && n < (int)sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", i ? ", " : "",
                      task_sanitizer(t, i));
    if (task_sanitize_case(t)[0] && n < (int)sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, " on case %s", task_sanitize_case(t));
    else if (n < (int)sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, " on the case flagged small by the harness");
    heading(p, line);
    if (!r || result_sanitizer_run_count(r) == 0) {
        wrapped(p, 3, TUI_C_DIM, 0, "not run");
        return;
    }
    for (size_t i = 0; i < result_sanitizer_run_count(r); i++) {
        const struct sanitizer_run *s = result_sanitizer_run(r, i);
        int y = next_row(p);
        if (y >= 0) {
            tui_put(y, 3, 11, TUI_C_NORMAL, 0, s->tool);
            int x = 15 + tui_put(y, 15, 20, sanitizer_role(s->status), 0,
                                 sanitizer_status_name(s->status));
            if (s->status == SANITIZER_FINDINGS)
                tui_putf(y, x + 1, COLS - x - 2, TUI_C_WARN, 0, "(%zu)", s->n_findings);
        }
        if (s->note[0])
            wrapped(p, 15, TUI_C_DIM, 0, s->note);
    }
    for (size_t i = 0; i < result_finding_count(r); i++) {
        const struct sanitizer_finding *f = result_finding(r, i);
        snprintf(line, sizeof line, "%s: %s", f->tool, f->kind);
        wrapped(p, 3, TUI_C_WARN, 0, line);
        if (f->kernel[0]) {
            snprintf(line, sizeof line, "in kernel %s", f->kernel);
            wrapped(p, 6, TUI_C_NORMAL, 0, line);
        }
        if (f->file[0]) {
            snprintf(line, sizeof line, "at %s:%d", tui_relative(p->ui, f->file), f->line);
            wrapped(p, 6, TUI_C_LOCATION, 0, line);
        }
    }
}

static void draw_build(struct page *p, const struct task_result *r)
{
    size_t nd = result_diag_count(r), nf = result_forbidden_count(r);
    if (nd == 0 && nf == 0 && result_outcome(r) != OUTCOME_BUILD_FAILED)
        return;
    blank(p);
    heading(p, "Build");
    for (size_t i = 0; i < nf; i++) {
        char line[256];
        snprintf(line, sizeof line, "forbidden symbol in your object: %s", result_forbidden(r, i));
        wrapped(p, 3, TUI_C_FAILURE, 0, line);
    }
    for (size_t i = 0; i < nd; i++) {
        const struct compiler_diag *d = result_diag(r, i);
        char loc[512];
        if (d->col > 0)
            snprintf(loc, sizeof loc, "%s:%d:%d", tui_relative(p->ui, d->file), d->line, d->col);
        else
            snprintf(loc, sizeof loc, "%s:%d", tui_relative(p->ui, d->file), d->line);
        int y = next_row(p);
        if (y >= 0) {
            int x = 3 + tui_put(y, 3, COLS - 4, TUI_C_LOCATION, 0, loc);
            enum tui_role role = strstr(d->severity, "error") ? TUI_C_WRONG
                                 : strcmp(d->severity, "warning") == 0 ? TUI_C_WARN
                                                                        : TUI_C_DIM;
            tui_putf(y, x, COLS - x - 1, role, 0, " %s", d->severity);
        }
        wrapped(p, 6, TUI_C_NORMAL, 0, d->text);
    }
    if (result_build_log_path(r)[0])
        wrapped(p, 3, TUI_C_DIM, 0, "l shows the whole build log");
}

static void draw_config(struct page *p, const struct task *t)
{
    blank(p);
    heading(p, "How it is graded");
    char line[512];
    int n = snprintf(line, sizeof line, "%.4g point%s, all or nothing: every case verified by "
                     "the reference solution's checker", task_weight(t),
                     task_weight(t) == 1 ? "" : "s");
    if (task_forbid_count(t))
        n += snprintf(line + n, sizeof line - (size_t)n, "; must not use:");
    for (size_t i = 0; i < task_forbid_count(t) && n < (int)sizeof line; i++) {
        /* "3cub" and "cub" are one library to the student: said once, by its name. */
        const char *w = tui_forbid_word(task_forbid(t, i));
        int seen = 0;
        for (size_t k = 0; k < i; k++)
            seen |= strcmp(tui_forbid_word(task_forbid(t, k)), w) == 0;
        if (!seen)
            n += snprintf(line + n, sizeof line - (size_t)n, "%s %s", i ? "," : "", w);
    }
    wrapped(p, 3, TUI_C_DIM, 0, line);
    snprintf(line, sizeof line, "%zu hint%s in lesson.ini (h)", task_hint_count(t),
             task_hint_count(t) == 1 ? "" : "s");
    wrapped(p, 3, TUI_C_DIM, 0, line);
}

void tui_task_draw(struct tui *ui)
{
    if (course_task_count(ui->course) == 0) {
        tui_put(2, 1, COLS - 2, TUI_C_WRONG, 0, "no tasks in this course");
        return;
    }
    const struct task *t = course_task(ui->course, ui->sel);
    const struct task_result *r = task_result(t);
    struct page p = { .ui = ui, .y0 = 1, .height = LINES - 2 };
    /* Two passes: the first counts the rows so a scroll past the end is pulled back. */
    size_t top = ui->detail_top;
    ui->detail_top = (size_t)-1 / 2;
    for (int pass = 0; pass < 2; pass++) {
        p.row = 0;
        draw_head(&p, t, r);
        /* A failed build is the whole story: its errors come first. */
        int build_first = r && result_outcome(r) == OUTCOME_BUILD_FAILED;
        if (build_first)
            draw_build(&p, r);
        if (r) {
            blank(&p);
            draw_cases(&p, t, r);
        }
        draw_speed(&p, t, r);
        draw_profile(&p, t, r);
        draw_sanitizers(&p, t, r);
        if (r && !build_first)
            draw_build(&p, r);
        draw_config(&p, t);
        if (pass == 0) {
            ui->detail_rows = p.row;
            size_t max_top = p.row > (size_t)p.height ? p.row - (size_t)p.height : 0;
            ui->detail_top = top > max_top ? max_top : top;
        }
    }
    if (ui->detail_top + (size_t)p.height < ui->detail_rows)
        tui_put(LINES - 2, COLS - 3, 1, TUI_C_DIM, 0, ui->utf8 ? "\xe2\x96\xbc" : "v");
}

enum tui_action tui_task_key(struct tui *ui, int ch)
{
    size_t page = LINES > 4 ? (size_t)LINES - 4 : 1;
    size_t was = ui->detail_top;
    size_t n = course_task_count(ui->course);
    switch (ch) {
    case KEY_UP:
    case 'k':
        if (ui->detail_top > 0)
            ui->detail_top--;
        break;
    case KEY_DOWN:
    case 'j':
        if (ui->detail_top + (size_t)(LINES - 2) < ui->detail_rows)
            ui->detail_top++;
        break;
    case KEY_PPAGE:
    case 'b':
        ui->detail_top = ui->detail_top > page ? ui->detail_top - page : 0;
        break;
    case KEY_NPAGE:
    case ' ':
        ui->detail_top += page;
        break;
    case KEY_HOME:
    case 'g':
        ui->detail_top = 0;
        break;
    case KEY_END:
    case 'G':
        ui->detail_top = ui->detail_rows;
        break;
    case '[':
    case ']':
        if (n == 0)
            return TUI_HANDLED;
        if (ch == '[' && ui->sel > 0)
            ui->sel--;
        else if (ch == ']' && ui->sel + 1 < n)
            ui->sel++;
        ui->detail_top = 0;
        return TUI_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (n)
            tui_post(ui, TUI_MSG_GRADE, ui->sel);
        return TUI_REDRAW;
    case 'p':
        if (n)
            tui_post(ui, TUI_MSG_PROFILE, ui->sel);
        return TUI_REDRAW;
    case KEY_LEFT:
    case 'q':
    case 27:
        return TUI_POP;
    default:
        return TUI_UNHANDLED;
    }
    return ui->detail_top == was ? TUI_HANDLED : TUI_REDRAW;
}

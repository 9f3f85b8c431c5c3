/* tui_grading.c — the TUI's side of the engine's grading queue and file watcher: what to
 * queue, what a finished grading changes on screen (the result to its task, the progress
 * saved, a message, the cursor on to the next unfinished task after a pass), and watch mode. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "tui_screen.h"

int tui_grading_start(struct tui *ui)
{
    ui->queue = grade_queue_start(ui->course, &ui->opts->grade, ui->opts->grade_one);
    return ui->queue ? 0 : -1;
}

void tui_grading_stop(struct tui *ui)
{
    grade_queue_stop(ui->queue);
    ui->queue = NULL;
    watch_stop(ui->watch);
    ui->watch = NULL;
}

int tui_grade(struct tui *ui, size_t task, int force)
{
    const struct task *t = course_task(ui->course, task);
    if (!force && session_is_fresh(ui->session, t))
        return 0;
    return grade_queue_add(ui->queue, task);
}

void tui_profile(struct tui *ui, size_t task)
{
    const char *id = task_id(course_task(ui->course, task));
    if (grade_queue_add_profiled(ui->queue, task, profile_ncu_args()))
        tui_message(ui, TUI_C_RUNNING, "grading %s with its profile under ncu", id);
    else
        tui_message(ui, TUI_C_NORMAL, "%s is already queued", id);
}

void tui_grade_all(struct tui *ui, int force)
{
    size_t n = course_task_count(ui->course), queued = 0;
    for (size_t i = 0; i < n; i++)
        queued += (size_t)tui_grade(ui, i, force || ui->opts->force);
    if (queued)
        tui_message(ui, TUI_C_RUNNING, "grading %zu task%s%s", queued, queued == 1 ? "" : "s",
                    queued < n && !force ? " (up-to-date ones kept; A regrades all)" : "");
    else
        tui_message(ui, TUI_C_NORMAL, "every task is up to date or queued; A regrades all");
}

void tui_cancel(struct tui *ui)
{
    size_t n = grade_queue_cancel(ui->queue);
    tui_message(ui, TUI_C_NORMAL, n ? "grading cancelled" : "nothing is being graded");
}

/* After the selected task passed: the next task that has not passed, after it and then
 * from the top; the selection stays when every task has. */
static void move_on(struct tui *ui)
{
    size_t n = course_task_count(ui->course);
    for (size_t k = 1; k < n; k++) {
        size_t i = (ui->sel + k) % n;
        if (task_outcome(course_task(ui->course, i)) != OUTCOME_PASSED) {
            ui->sel = i;
            ui->detail_top = 0;
            return;
        }
    }
}

static void arrived(struct tui *ui, size_t index, struct task_result *r)
{
    struct task *t = course_task_mut(ui->course, index);
    int saved = session_take(ui->session, t, r);
    enum grader_outcome o = task_outcome(t);
    const char *why = tui_reason(o, result_reason(task_result(t)));
    int next = o == OUTCOME_PASSED && index == ui->sel;
    if (next)
        move_on(ui);
    if (o == OUTCOME_SKIPPED && ui->no_gpu[0])
        tui_message(ui, TUI_C_SKIP, "%s: skipped, nothing could be graded here: %s", task_id(t),
                    why[0] ? why : ui->no_gpu);
    else if (next && ui->sel != index)
        tui_message(ui, TUI_C_PASS, "%s: passed; on to %s", task_id(t),
                    task_id(course_task(ui->course, ui->sel)));
    else
        tui_message(ui, tui_outcome_role(o), "%s: %s%s%s", task_id(t), outcome_name(o),
                    why[0] ? ": " : "", why);
    if (saved != 0)
        tui_message(ui, TUI_C_WRONG, "cannot save progress to %s: %s", ui->opts->state_path,
                    strerror(errno));
}

size_t tui_collect(struct tui *ui)
{
    grade_queue_drain(ui->queue);
    size_t n = 0, task;
    struct task_result *r;
    while (grade_queue_take(ui->queue, &task, &r)) {
        if (r) {
            arrived(ui, task, r);
            n++;
        }
    }
    return n;
}

void tui_watch_toggle(struct tui *ui)
{
    if (ui->watch) {
        watch_stop(ui->watch);
        ui->watch = NULL;
        tui_message(ui, TUI_C_NORMAL, "watch mode off");
        return;
    }
    size_t n = course_task_count(ui->course);
    const char **paths = calloc(n + 1, sizeof *paths);
    for (size_t i = 0; paths && i < n; i++)
        paths[i] = task_exercise_path(course_task(ui->course, i));
    ui->watch = paths ? watch_start(paths, n) : NULL;
    int e = errno;
    free(paths);
    if (!ui->watch)
        tui_message(ui, TUI_C_WRONG, "watch mode unavailable: inotify: %s", strerror(e));
    else
        tui_message(ui, TUI_C_RUNNING,
                    "watch mode on: saving an exercise file rebuilds and regrades its task");
}

void tui_watch_handle(struct tui *ui)
{
    size_t due[64], n;
    watch_read(ui->watch);
    while ((n = watch_due(ui->watch, due, 64)) > 0) {
        for (size_t i = 0; i < n; i++)
            if (grade_queue_add(ui->queue, due[i]))
                tui_message(ui, TUI_C_RUNNING, "saved %s: rebuilding and regrading",
                            task_id(course_task(ui->course, due[i])));
    }
}

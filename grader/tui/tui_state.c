/* tui_state.c — small helpers over the interface state that screens and the loop share:
 * posting a message to the loop, the key bar's message, how a reason and a forbidden word are
 * shown, whether a task is being graded or was edited since. No drawing. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tui_screen.h"

void tui_post(struct tui *ui, enum tui_msg_kind kind, size_t arg)
{
    if (ui->n_msgs < TUI_MSG_MAX)
        ui->msgs[ui->n_msgs++] = (struct tui_msg){ kind, arg };
}

enum tui_screen_id tui_top(const struct tui *ui)
{
    return ui->stack[ui->depth - 1];
}

void tui_message(struct tui *ui, enum tui_role role, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ui->msg, sizeof ui->msg, fmt, ap);
    va_end(ap);
    ui->msg_role = role;
}

const char *tui_reason(enum grader_outcome o, const char *reason)
{
    static const char *const prefixes[] = { "SKIP:", "skipped:", "SKIP " };
    if (o != OUTCOME_SKIPPED)
        return reason;
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            size_t n = strlen(prefixes[i]);
            if (strncasecmp(reason, prefixes[i], n) == 0) {
                reason += n;
                while (*reason == ' ')
                    reason++;
                again = 1;
            }
        }
    }
    return reason;
}

const char *tui_forbid_word(const char *w)
{
    const char *s = w;
    while (isdigit((unsigned char)*s))
        s++;
    return s != w && *s ? s : w;
}

int tui_is_running(const struct tui *ui, size_t task, struct grade_queue_status *st)
{
    struct grade_queue_status mine;
    if (!st)
        st = &mine;
    return grade_queue_running(ui->queue, st) && st->task == task;
}

/* The file's time rules most tasks out without reading it; a newer file counts only when its
 * content differs (a checkout or a save without changes touches the time alone). */
int tui_is_stale(const struct task *t)
{
    const struct task_result *r = task_result(t);
    struct stat st;
    if (!r || stat(task_exercise_path(t), &st) != 0 ||
        (int64_t)st.st_mtime <= result_graded_at(r))
        return 0;
    char hash[HASH_HEX_LEN + 1];
    if (!result_exercise_hash(r)[0] || hash_file_hex(task_exercise_path(t), hash) != 0)
        return 1;
    return strcmp(hash, result_exercise_hash(r)) != 0;
}

const char *tui_relative(const struct tui *ui, const char *path)
{
    const char *root = course_root(ui->course);
    size_t n = strlen(root);
    return n && strncmp(path, root, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

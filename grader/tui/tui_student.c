/* tui_student.c — the student's own file: `e` opens it in their editor (VISUAL, then EDITOR,
 * then vi) with the screen handed over and taken back; `r` puts the shipped version back
 * (git's HEAD:exercises/L/T.cu) after a y/N question, keeping the student's file beside it
 * as T.cu.bak-<time>: the grader never deletes student work. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "tui_screen.h"
#include "util.h"

#define SHIPPED_MAX (16u << 20)

static const char *editor(void)
{
    const char *names[] = { "VISUAL", "EDITOR" };
    for (size_t i = 0; i < 2; i++) {
        const char *e = getenv(names[i]);
        if (e && *e)
            return e;
    }
    return "vi";
}

/* Runs argv with the terminal handed over; the exit status, or -1. The grader ignores
 * Ctrl-C meanwhile: it belongs to the child. */
static int run_foreground(char *const argv[])
{
    struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = -1;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void tui_edit(struct tui *ui, size_t task)
{
    const char *path = task_exercise_path(course_task(ui->course, task));
    /* The editor's value may carry arguments ("code -w"): the shell splits it. */
    char *script = xasprintf("exec %s \"$1\"", editor());
    char *argv[] = { "sh", "-c", script, "sh", (char *)path, NULL };
    def_prog_mode();
    endwin();
    int rc = run_foreground(argv);
    reset_prog_mode();
    clearok(curscr, TRUE);
    refresh();
    if (rc != 0)
        tui_message(ui, TUI_C_WRONG, "the editor (%s) exited with status %d", editor(), rc);
    else
        tui_message(ui, TUI_C_NORMAL, "back from the editor; Enter grades %s",
                    task_id(course_task(ui->course, task)));
    free(script);
}

/* The shipped version of path (relative to root) from git: malloc'd, *len set; NULL with
 * why[] when it cannot be had. */
static char *shipped(const char *root, const char *rel, size_t *len, char *why, size_t n)
{
    char *spec = xasprintf("HEAD:%s", rel);
    char *argv[] = { "git", "-C", (char *)root, "show", spec, NULL };
    char *buf;
    int rc = run_capture(argv, 0, SHIPPED_MAX, &buf, len);
    free(spec);
    if (rc == 0)
        return buf;
    snprintf(why, n, "git has no shipped version of %s (the course is not a git checkout, "
             "or the file is new)", rel);
    free(buf);
    return NULL;
}

/* 1 when the file holds exactly len bytes of want. */
static int same_content(const char *path, const char *want, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *have = xcalloc(len + 2, 1);
    size_t n = fread(have, 1, len + 1, f);
    fclose(f);
    int same = n == len && memcmp(have, want, len) == 0;
    free(have);
    return same;
}

/* The student's file kept as path.bak-<time> (a hard link: the same bytes, never copied
 * wrong), then the shipped content written beside it and renamed over path. */
static int replace(const char *path, const char *data, size_t len, char *backup, size_t n)
{
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
    snprintf(backup, n, "%s.bak-%s", path, stamp);
    for (int k = 2; link(path, backup) != 0; k++) {
        if (errno != EEXIST || k > 99)
            return -1;
        snprintf(backup, n, "%s.bak-%s-%d", path, stamp, k);
    }
    return write_atomic(path, data, len);
}

void tui_reset_ask(struct tui *ui, size_t task)
{
    const struct task *t = course_task(ui->course, task);
    const char *path = task_exercise_path(t), *rel = tui_relative(ui, path);
    /* nothing to ask when there is nothing to reset to, or nothing to reset */
    char why[512];
    size_t len;
    char *data = shipped(course_root(ui->course), rel, &len, why, sizeof why);
    int same = data && same_content(path, data, len);
    free(data);
    if (!data || same) {
        if (!data)
            tui_message(ui, TUI_C_WRONG, "cannot reset: %s", why);
        else
            tui_message(ui, TUI_C_NORMAL, "%s is already the shipped version", rel);
        return;
    }
    ui->confirm_reset = task + 1;
    tui_message(ui, TUI_C_WARN, "reset %s to the shipped version (y/N)? yours is kept as a .bak",
                tui_relative(ui, task_exercise_path(t)));
}

void tui_reset_answer(struct tui *ui, int ch)
{
    const struct task *t = course_task(ui->course, ui->confirm_reset - 1);
    const char *path = task_exercise_path(t), *rel = tui_relative(ui, path);
    ui->confirm_reset = 0;
    if (ch != 'y' && ch != 'Y') {
        tui_message(ui, TUI_C_NORMAL, "reset cancelled: %s is as it was", rel);
        return;
    }
    char why[512], backup[4096];
    size_t len;
    char *data = shipped(course_root(ui->course), rel, &len, why, sizeof why);
    if (!data) {
        tui_message(ui, TUI_C_WRONG, "cannot reset: %s", why);
        return;
    }
    if (same_content(path, data, len))
        tui_message(ui, TUI_C_NORMAL, "%s is already the shipped version", rel);
    else if (replace(path, data, len, backup, sizeof backup) != 0)
        tui_message(ui, TUI_C_WRONG, "cannot reset %s: %s", rel, strerror(errno));
    else
        tui_message(ui, TUI_C_NORMAL, "shipped version back in %s; yours is %s",
                    strrchr(path, '/') + 1, strrchr(backup, '/') + 1);
    free(data);
}

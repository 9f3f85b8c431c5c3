/* tui.c — the TUI's one central loop.
 *
 * It waits (poll) on every source at once: the keyboard, the grading worker's wake-up pipe,
 * inotify in watch mode, and the signals (through a pipe). Whatever arrives changes the
 * state; the screen on top of the stack is then drawn again from the state. Resizing and
 * the "terminal too small" screen are handled here once, so no screen has to think about
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tui.h"
#include "tui_screen.h"

#define KEY_CTRL(c) ((c) & 0x1f)

struct screen {
    void (*draw)(struct tui *ui);
    enum tui_action (*key)(struct tui *ui, int ch);
    const char *keys;       /* the key bar's text */
    const char *title;
};

static const struct screen screens[] = {
    [TUI_SCREEN_LIST]  = { tui_list_draw,  tui_list_key,  tui_list_keys,  "course" },
    [TUI_SCREEN_TASK]  = { tui_task_draw,  tui_task_key,  tui_task_keys,  "task" },
    [TUI_SCREEN_PAGER] = { tui_pager_draw, tui_pager_key, tui_pager_keys, "" },
    [TUI_SCREEN_HELP]  = { tui_help_draw,  tui_help_key,  tui_help_keys,  "help" },
};

/* Signals reach the loop through a pipe that poll watches, whichever thread the kernel
 * delivers them to: SIGINT / SIGTERM / SIGHUP end the loop cleanly (the terminal is restored
 * and the running grading's children are killed), SIGWINCH resizes the screen. */
static volatile sig_atomic_t stop_signal, resized;
static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
    int saved = errno;
    if (sig == SIGWINCH)
        resized = 1;
    else
        stop_signal = sig;
    char b = 1;
    ssize_t w = write(signal_pipe[1], &b, 1);
    (void)w;
    errno = saved;
}

/* --------------------------------------------------------------- navigation */
void tui_push(struct tui *ui, enum tui_screen_id s)
{
    if (ui->depth < TUI_STACK_MAX)
        ui->stack[ui->depth++] = s;
}

void tui_pop(struct tui *ui)
{
    if (ui->depth > 1)
        ui->depth--;
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

int tui_grade(struct tui *ui, size_t task, int force)
{
    const struct task *t = course_task(ui->course, task);
    if (!force && session_is_fresh(ui->session, t))
        return 0;
    return tui_jobs_enqueue(ui->jobs, task);
}

void tui_watch_toggle(struct tui *ui)
{
    if (ui->watch) {
        tui_watch_stop(ui->watch);
        ui->watch = NULL;
        tui_message(ui, TUI_C_NORMAL, "watch mode off");
        return;
    }
    ui->watch = tui_watch_start(ui);
    if (!ui->watch)
        tui_message(ui, TUI_C_WRONG, "watch mode unavailable: inotify: %s", strerror(errno));
    else
        tui_message(ui, TUI_C_RUNNING,
                    "watch mode on: saving an exercise file rebuilds and regrades its task");
}

/* --------------------------------------------------------------- the bars */
static void draw_title_bar(struct tui *ui)
{
    tui_fill(0, 0, TUI_C_TITLE, 0);
    char right[256] = "";
    size_t task;
    enum grade_step step;
    char detail[128];
    double elapsed;
    size_t queued = tui_jobs_queued(ui->jobs);
    if (tui_jobs_running(ui->jobs, &task, &step, detail, sizeof detail, &elapsed)) {
        char more[48] = "";
        if (queued)
            snprintf(more, sizeof more, "  +%zu queued", queued);
        snprintf(right, sizeof right, "%s %s: %s%s%s %.0fs%s%s ",
                 tui_spinner(ui->tick, ui->utf8), task_name(course_task(ui->course, task)),
                 grade_step_name(step), detail[0] ? " " : "", detail, elapsed, more,
                 ui->watch ? "  [watch]" : "");
    } else if (ui->watch) {
        snprintf(right, sizeof right, "[watch] waiting for a save ");
    }
    int rw = tui_width(right);
    if (rw > COLS / 2)
        rw = COLS / 2;
    if (rw)
        tui_put(0, COLS - rw, rw, TUI_C_TITLE, 0, right);

    const char *what = tui_top(ui) == TUI_SCREEN_PAGER ? ui->pager.title
                                                       : screens[tui_top(ui)].title;
    int x = tui_putf(0, 0, COLS - rw, TUI_C_TITLE, 0, " CUDA Lab grader  %s  ",
                     ui->utf8 ? "\xe2\x80\xba" : ">");
    tui_put(0, x, COLS - rw - x - 1, TUI_C_TITLE, 0, what);
}

static void draw_key_bar(struct tui *ui)
{
    int y = LINES - 1;
    tui_fill(y, 0, TUI_C_STATUS, 0);
    if (ui->msg[0]) {
        tui_putf(y, 0, COLS, ui->msg_role == TUI_C_NORMAL ? TUI_C_STATUS : ui->msg_role, 0,
                 " %s", ui->msg);
        return;
    }
    tui_putf(y, 0, COLS, TUI_C_STATUS, 0, " %s", screens[tui_top(ui)].keys);
}

static void draw_too_small(void)
{
    erase();
    int y = LINES / 2 - 1;
    if (y < 0)
        y = 0;
    tui_put(y, 0, COLS, TUI_C_WRONG, 0, "Terminal too small");
    tui_putf(y + 1, 0, COLS, TUI_C_NORMAL, 0, "%dx%d, need %dx%d", COLS, LINES, TUI_MIN_COLS,
             TUI_MIN_LINES);
    tui_put(y + 2, 0, COLS, TUI_C_DIM, 0, "enlarge it, or q to quit");
}

static int too_small(void)
{
    return COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES;
}

static void draw(struct tui *ui)
{
    erase();
    if (too_small()) {
        draw_too_small();
    } else {
        screens[tui_top(ui)].draw(ui);
        draw_title_bar(ui);
        draw_key_bar(ui);
    }
    refresh();
}

/* --------------------------------------------------------------- keys */
static enum tui_action global_key(struct tui *ui, int ch)
{
    switch (ch) {
    case '?':
        if (tui_top(ui) == TUI_SCREEN_HELP)
            tui_pop(ui);
        else
            tui_push(ui, TUI_SCREEN_HELP);
        return TUI_REDRAW;
    case 'w':
        tui_watch_toggle(ui);
        return TUI_REDRAW;
    case 'a':
    case 'A': {
        size_t n = course_task_count(ui->course), queued = 0;
        for (size_t i = 0; i < n; i++)
            queued += (size_t)tui_grade(ui, i, ch == 'A' || ui->opts->force);
        if (queued)
            tui_message(ui, TUI_C_RUNNING, "grading %zu task%s%s", queued, queued == 1 ? "" : "s",
                        queued < n && ch == 'a' ? " (up-to-date ones kept; A regrades all)" : "");
        else
            tui_message(ui, TUI_C_NORMAL, "every task is up to date or queued; A regrades all");
        return TUI_REDRAW;
    }
    case 'x': {
        size_t n = tui_jobs_cancel(ui->jobs);
        tui_message(ui, TUI_C_NORMAL, n ? "grading cancelled" : "nothing is being graded");
        return TUI_REDRAW;
    }
    case 'n':
        tui_pager_open(ui, TUI_PAGER_NOTES);
        return TUI_REDRAW;
    case 'h':
        tui_pager_open(ui, TUI_PAGER_HINTS);
        return TUI_REDRAW;
    case 'l':
        tui_pager_open(ui, TUI_PAGER_BUILD_LOG);
        return TUI_REDRAW;
    case 'o':
        tui_pager_open(ui, TUI_PAGER_OUTPUT);
        return TUI_REDRAW;
    case 's':
        tui_pager_open(ui, TUI_PAGER_SANITIZER);
        return TUI_REDRAW;
    case 'Q':
    case KEY_CTRL('c'):
        return TUI_QUIT;
    case KEY_CTRL('l'):
        clearok(curscr, TRUE);
        return TUI_REDRAW;
    default:
        return TUI_HANDLED;
    }
}

/* Returns 0 to go on, 1 to quit. */
static int handle_key(struct tui *ui, int ch, int *dirty)
{
    if (ch == KEY_RESIZE) {
        *dirty = 1;
        return 0;
    }
    if (too_small()) {
        if (ch == 'q' || ch == 'Q' || ch == KEY_CTRL('c'))
            return 1;
        return 0;
    }
    /* A message lives until the next key, so what it reports is seen at least once. */
    if (ui->msg[0]) {
        ui->msg[0] = '\0';
        *dirty = 1;
    }
    enum tui_action a = screens[tui_top(ui)].key(ui, ch);
    if (a == TUI_UNHANDLED)
        a = global_key(ui, ch);
    if (a == TUI_QUIT)
        return 1;
    if (a == TUI_REDRAW)
        *dirty = 1;
    return 0;
}

/* --------------------------------------------------------------- set-up */
static int terminal_colors(const struct grader_opts *o)
{
    const char *nc = getenv("NO_COLOR");
    if (o->no_color || (nc && nc[0]))
        return 0;
    if (!has_colors() || start_color() == ERR)
        return 0;
    use_default_colors();
    return COLORS >= 8 && COLOR_PAIRS > TUI_C_COUNT;
}

/* Before newterm, so ncurses keeps our SIGWINCH handler instead of installing its own. */
static int install_signals(void)
{
    if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a signal must interrupt poll so the loop sees it at once. */
    int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    return 0;
}

static void restore_signals(void)
{
    int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    close(signal_pipe[0]);
    close(signal_pipe[1]);
    signal_pipe[0] = signal_pipe[1] = -1;
}

/* The terminal's new size, told to ncurses. */
static void apply_resize(void)
{
    struct winsize ws;
    resized = 0;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resizeterm(ws.ws_row, ws.ws_col);
}

static void loop(struct tui *ui)
{
    int dirty = 1;
    while (!stop_signal) {
        if (dirty)
            draw(ui);
        dirty = 0;

        struct pollfd fds[4] = {
            { .fd = STDIN_FILENO, .events = POLLIN },
            { .fd = tui_jobs_fd(ui->jobs), .events = POLLIN },
            { .fd = ui->watch ? tui_watch_fd(ui->watch) : -1, .events = POLLIN },
            { .fd = signal_pipe[0], .events = POLLIN },
        };
        /* While a task is graded the spinner and the elapsed time move five times a second.
         * Idle, the screen is still drawn every two seconds: an exercise edited outside watch
         * mode gets its "edited since" mark without a key press (ncurses sends only what
         * changed, so this costs nearly nothing). */
        int busy = tui_jobs_running(ui->jobs, NULL, NULL, NULL, 0, NULL);
        int n = poll(fds, 4, busy ? 200 : 2000);
        if (n < 0 && errno != EINTR)
            break;
        if (busy)
            ui->tick++;
        if (busy || n == 0)
            dirty = 1;
        if (n > 0 && (fds[3].revents & POLLIN)) {
            char buf[64];
            while (read(signal_pipe[0], buf, sizeof buf) > 0)
                continue;
        }
        if (resized) {
            apply_resize();
            dirty = 1;
        }
        if (n > 0 && (fds[1].revents & POLLIN) && tui_jobs_collect(ui) > 0)
            dirty = 1;
        if (n > 0 && (fds[2].revents & POLLIN) && ui->watch) {
            tui_watch_handle(ui);
            dirty = 1;
        }
        int ch;
        while ((ch = getch()) != ERR) {
            if (handle_key(ui, ch, &dirty))
                return;
        }
        /* Redraw at once when the worker started or finished, before the next key. */
        if (tui_jobs_running(ui->jobs, NULL, NULL, NULL, 0, NULL) != busy)
            dirty = 1;
    }
}

int tui_main(struct grading_session *s, const struct grader_opts *o)
{
    struct course *c = session_course(s);
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "grader: the interactive screen needs a terminal; use grader --batch\n");
        return 2;
    }
    setlocale(LC_ALL, "");
    struct tui ui;
    memset(&ui, 0, sizeof ui);
    ui.course = c;
    ui.opts = o;
    ui.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    ui.stack[ui.depth++] = TUI_SCREEN_LIST;
    ui.hints_shown = calloc(course_task_count(c) + 1, sizeof *ui.hints_shown);
    if (!ui.hints_shown)
        return 2;
    ui.session = s;

    if (install_signals() != 0) {
        fprintf(stderr, "grader: cannot create a pipe: %s\n", strerror(errno));
        free(ui.hints_shown);
        return 2;
    }
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        restore_signals();
        fprintf(stderr, "grader: cannot drive terminal type '%s'; use grader --batch\n",
                getenv("TERM") ? getenv("TERM") : "(unset)");
        free(ui.hints_shown);
        return 2;
    }
    set_term(scr);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    ui.color = terminal_colors(o);
    tui_colors_init(ui.color);
    ui.jobs = tui_jobs_start(&ui);

    int rc = 2;
    if (ui.jobs) {
        size_t n = course_error_count(c);
        if (n)
            tui_message(&ui, TUI_C_WRONG, "%s%s", course_error(c, 0),
                        n > 1 ? "  (more in the list)" : "");
        loop(&ui);
        tui_jobs_stop(ui.jobs);
        rc = course_exit_status(c);
    }
    if (ui.watch)
        tui_watch_stop(ui.watch);
    endwin();
    delscreen(scr);
    restore_signals();
    tui_pager_free(&ui.pager);
    free(ui.hints_shown);
    if (!ui.jobs)
        fprintf(stderr, "grader: cannot start the grading thread\n");
    return rc;
}

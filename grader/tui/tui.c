/* tui.c — the TUI's one central loop, its screen stack and its messages.
 *
 * It waits (poll) on every source at once: the keyboard, the grading queue's wake-up pipe,
 * the file watcher in watch mode, and the signals (through a pipe). A key goes to the screen
 * on top of the stack, then to the global keys; what a screen asks beyond its own state comes
 * back as messages, carried out here after the key (open a pager, grade, edit, reset). The
 * screen on top is then drawn again from the state. Resizing and the "terminal too small"
 * screen are handled here once, so no screen has to think about them.
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

#include "doctor.h"
#include "tui.h"
#include "tui_screen.h"
/* After the TUI's headers: term.h defines names such as `lines` as macros. */
#include <term.h>

#define KEY_CTRL(c) ((c) & 0x1f)

struct screen {
    void (*draw)(struct tui *ui);
    enum tui_action (*key)(struct tui *ui, int ch);
    const char *keys;       /* the key bar's text */
    const char *title;
};

static const struct screen screens[TUI_SCREEN_COUNT] = {
    [TUI_SCREEN_LIST]  = { tui_list_draw,  tui_list_key,  tui_list_keys,  "course" },
    [TUI_SCREEN_TASK]  = { tui_task_draw,  tui_task_key,  tui_task_keys,  "task" },
    [TUI_SCREEN_PAGER] = { tui_pager_draw, tui_pager_key, tui_pager_keys, "" },
    [TUI_SCREEN_LOG]   = { tui_log_draw,   tui_log_key,   tui_log_keys,   "" },
    [TUI_SCREEN_HELP]  = { tui_help_draw,  tui_help_key,  tui_help_keys,  "help" },
};
static const struct screen too_small_screen = { tui_small_draw, tui_small_key, tui_small_keys,
                                                "terminal too small" };

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

/* --------------------------------------------------------------- the stack, messages */
static void push(struct tui *ui, enum tui_screen_id id)
{
    if (ui->depth < TUI_STACK_MAX && tui_top(ui) != id)
        ui->stack[ui->depth++] = id;
}

static void pop(struct tui *ui)
{
    if (ui->depth > 1)
        ui->depth--;
}

/* A pager opened over a pager replaces it, so q always goes back to where it came from. */
static void open_pager(struct tui *ui, enum tui_pager_kind kind)
{
    int id = tui_pages_open(ui, (enum tui_pager_kind)kind);
    if (id < 0)
        return;
    if (tui_top(ui) == TUI_SCREEN_PAGER || tui_top(ui) == TUI_SCREEN_LOG)
        pop(ui);
    push(ui, (enum tui_screen_id)id);
}

static void grade_now(struct tui *ui, size_t task)
{
    const char *id = task_id(course_task(ui->course, task));
    if (tui_grade(ui, task, 1))
        tui_message(ui, TUI_C_RUNNING, "grading %s", id);
    else
        tui_message(ui, TUI_C_NORMAL, "%s is already queued", id);
}

/* Carries out what the screens posted; 1 to quit. */
static int dispatch(struct tui *ui)
{
    int quit = 0;
    size_t n = course_task_count(ui->course);
    for (size_t i = 0; i < ui->n_msgs; i++) {
        struct tui_msg m = ui->msgs[i];
        switch (m.kind) {
        case TUI_MSG_PUSH: push(ui, (enum tui_screen_id)m.arg); break;
        case TUI_MSG_OPEN: open_pager(ui, (enum tui_pager_kind)m.arg); break;
        case TUI_MSG_GRADE: if (m.arg < n) grade_now(ui, m.arg); break;
        case TUI_MSG_PROFILE: if (m.arg < n) tui_profile(ui, m.arg); break;
        case TUI_MSG_GRADE_ALL: tui_grade_all(ui, (int)m.arg); break;
        case TUI_MSG_CANCEL: tui_cancel(ui); break;
        case TUI_MSG_WATCH: tui_watch_toggle(ui); break;
        case TUI_MSG_EDIT: if (n) tui_edit(ui, ui->sel); break;
        case TUI_MSG_RESET: if (n) tui_reset_ask(ui, ui->sel); break;
        case TUI_MSG_QUIT: quit = 1; break;
        }
    }
    ui->n_msgs = 0;
    return quit;
}

/* --------------------------------------------------------------- the bars */
static void draw_title_bar(struct tui *ui)
{
    tui_fill(0, 0, TUI_C_TITLE, 0);
    char right[256] = "";
    struct grade_queue_status st;
    size_t queued = grade_queue_waiting(ui->queue);
    if (grade_queue_running(ui->queue, &st)) {
        char more[48] = "";
        if (queued)
            snprintf(more, sizeof more, "  +%zu queued", queued);
        snprintf(right, sizeof right, "%s %s: %s%s%s %.0fs%s%s ",
                 tui_spinner(ui->tick, ui->utf8), task_name(course_task(ui->course, st.task)),
                 grade_step_name(st.step), st.detail[0] ? " " : "", st.detail, st.elapsed_s,
                 more, ui->watch ? "  [watch]" : "");
    } else if (ui->watch) {
        snprintf(right, sizeof right, "[watch] waiting for a save ");
    }
    int rw = tui_width(right);
    if (rw > COLS / 2)
        rw = COLS / 2;
    if (rw)
        tui_put(0, COLS - rw, rw, TUI_C_TITLE, 0, right);

    enum tui_screen_id top = tui_top(ui);
    const char *what = top == TUI_SCREEN_PAGER || top == TUI_SCREEN_LOG ? ui->pager.title
                                                                        : screens[top].title;
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

static int too_small(void)
{
    return COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES;
}

static void draw(struct tui *ui)
{
    erase();
    if (too_small()) {
        too_small_screen.draw(ui);
    } else {
        screens[tui_top(ui)].draw(ui);
        draw_title_bar(ui);
        draw_key_bar(ui);
    }
    refresh();
}

/* --------------------------------------------------------------- keys */
/* The keys every screen shares, as messages; TUI_HANDLED when the key means nothing. */
static enum tui_action global_key(struct tui *ui, int ch)
{
    static const struct { int ch; enum tui_msg_kind kind; size_t arg; } keys[] = {
        { 'w', TUI_MSG_WATCH, 0 },       { 'a', TUI_MSG_GRADE_ALL, 0 },
        { 'A', TUI_MSG_GRADE_ALL, 1 },   { 'x', TUI_MSG_CANCEL, 0 },
        { 'n', TUI_MSG_OPEN, TUI_PAGER_NOTES },  { 'h', TUI_MSG_OPEN, TUI_PAGER_HINTS },
        { 'l', TUI_MSG_OPEN, TUI_PAGER_BUILD_LOG }, { 'o', TUI_MSG_OPEN, TUI_PAGER_OUTPUT },
        { 's', TUI_MSG_OPEN, TUI_PAGER_SANITIZER }, { 'e', TUI_MSG_EDIT, 0 },
        { 'r', TUI_MSG_RESET, 0 },       { 'Q', TUI_MSG_QUIT, 0 },
        { KEY_CTRL('c'), TUI_MSG_QUIT, 0 },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].ch == ch) {
            tui_post(ui, keys[i].kind, keys[i].arg);
            return TUI_REDRAW;
        }
    if (ch == '?') {
        if (tui_top(ui) == TUI_SCREEN_HELP)
            pop(ui);
        else
            push(ui, TUI_SCREEN_HELP);
        return TUI_REDRAW;
    }
    if (ch == KEY_CTRL('l')) {
        clearok(curscr, TRUE);
        return TUI_REDRAW;
    }
    return TUI_HANDLED;
}

/* Returns 0 to go on, 1 to quit. */
static int handle_key(struct tui *ui, int ch, int *dirty)
{
    if (ch == KEY_RESIZE) {
        *dirty = 1;
        return 0;
    }
    if (too_small())
        return too_small_screen.key(ui, ch) == TUI_QUIT;
    /* A message lives until the next key, so what it reports is seen at least once. */
    if (ui->msg[0]) {
        ui->msg[0] = '\0';
        *dirty = 1;
    }
    if (ui->confirm_reset) {
        tui_reset_answer(ui, ch);
        *dirty = 1;
        return 0;
    }
    enum tui_action a = screens[tui_top(ui)].key(ui, ch);
    if (a == TUI_UNHANDLED)
        a = global_key(ui, ch);
    if (a == TUI_POP)
        pop(ui);
    if (a != TUI_HANDLED || ui->n_msgs)
        *dirty = 1;
    return a == TUI_QUIT || dispatch(ui);
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

/* Poll's timeout: the spinner moves five times a second while grading; a pending save is
 * handed over once the watcher's debounce has passed; idle, the screen is still drawn every
 * two seconds, so an exercise edited outside watch mode gets its "edited since" mark without
 * a key press (ncurses sends only what changed, so this costs nearly nothing). */
static int poll_timeout(const struct tui *ui, int busy)
{
    int t = busy ? 200 : 2000;
    int w = ui->watch ? watch_timeout_ms(ui->watch) : -1;
    return w >= 0 && w < t ? w : t;
}

/* Whatever arrived besides keys; sets *dirty when the screen changes. */
static void handle_sources(struct tui *ui, const struct pollfd *fds, int n, int *dirty)
{
    if (n > 0 && (fds[3].revents & POLLIN)) {
        char buf[64];
        while (read(signal_pipe[0], buf, sizeof buf) > 0)
            continue;
    }
    if (resized) {
        apply_resize();
        *dirty = 1;
    }
    if (n > 0 && (fds[1].revents & POLLIN) && tui_collect(ui) > 0)
        *dirty = 1;
    if (ui->watch) {
        size_t before = grade_queue_waiting(ui->queue);
        tui_watch_handle(ui);
        *dirty |= grade_queue_waiting(ui->queue) != before;
    }
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
            { .fd = grade_queue_fd(ui->queue), .events = POLLIN },
            { .fd = ui->watch ? watch_fd(ui->watch) : -1, .events = POLLIN },
            { .fd = signal_pipe[0], .events = POLLIN },
        };
        int busy = grade_queue_running(ui->queue, NULL);
        int n = poll(fds, 4, poll_timeout(ui, busy));
        if (n < 0 && errno != EINTR)
            break;
        if (busy)
            ui->tick++;
        if (busy || n == 0)
            dirty = 1;
        handle_sources(ui, fds, n, &dirty);
        int ch;
        while ((ch = getch()) != ERR) {
            if (handle_key(ui, ch, &dirty))
                return;
        }
        /* Redraw at once when the worker started or finished, before the next key. */
        if (grade_queue_running(ui->queue, NULL) != busy)
            dirty = 1;
    }
}

int tui_usable(void)
{
    const char *term = getenv("TERM");
    if (!term || !*term || strcmp(term, "dumb") == 0)
        return 0;
    int err = 0;
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
        return 0;
    /* Screens are drawn by moving the cursor: a terminal without cursor addressing cannot. */
    const char *cup = tigetstr("cup");
    int usable = cup && cup != (char *)-1;
    del_curterm(cur_term);
    return usable;
}

/* The state the loop starts from; 0, or -1 when out of memory. */
static int init_ui(struct tui *ui, struct grading_session *s, const struct grader_opts *o)
{
    memset(ui, 0, sizeof *ui);
    ui->session = s;
    ui->course = session_course(s);
    struct course *c = ui->course;
    ui->opts = o;
    ui->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    ui->stack[ui->depth++] = TUI_SCREEN_LIST;
    ui->pager.match = SIZE_MAX;
    ui->hints_shown = calloc(course_task_count(c) + 1, sizeof *ui->hints_shown);
    if (!ui->hints_shown)
        return -1;
    /* Once, before the first screen: the list says at once when nothing can run here (unless
     * the runs go to a GPU node: then it says that). */
    if (!o->remote_note)
        doctor_gpu_probe(ui->no_gpu, sizeof ui->no_gpu);
    return 0;
}

static void free_ui(struct tui *ui)
{
    tui_pager_free(&ui->pager);
    free(ui->hints_shown);
}

static SCREEN *start_curses(struct tui *ui, const struct grader_opts *o)
{
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr)
        return NULL;
    set_term(scr);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    ui->color = terminal_colors(o);
    tui_colors_init(ui->color);
    return scr;
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
    if (init_ui(&ui, s, o) != 0)
        return 2;
    if (install_signals() != 0) {
        fprintf(stderr, "grader: cannot create a pipe: %s\n", strerror(errno));
        free_ui(&ui);
        return 2;
    }
    SCREEN *scr = start_curses(&ui, o);
    if (!scr) {
        restore_signals();
        fprintf(stderr, "grader: cannot drive terminal type '%s'; use grader --batch\n",
                getenv("TERM") ? getenv("TERM") : "(unset)");
        free_ui(&ui);
        return 2;
    }
    int rc = 2, started = tui_grading_start(&ui) == 0;
    if (started) {
        size_t n = course_error_count(c);
        if (session_state_note(s))
            tui_message(&ui, TUI_C_WRONG, "%s", session_state_note(s));
        else if (n)
            tui_message(&ui, TUI_C_WRONG, "%s%s", course_error(c, 0),
                        n > 1 ? "  (more in the list)" : "");
        loop(&ui);
        rc = course_exit_status(c);
    }
    tui_grading_stop(&ui);
    endwin();
    delscreen(scr);
    restore_signals();
    free_ui(&ui);
    if (!started)
        fprintf(stderr, "grader: cannot start the grading thread\n");
    return rc;
}

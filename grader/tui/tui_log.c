/* tui_log.c — the build log screen: make's output with every file:line location (gcc and
 * clang "file:line:col:", nvcc "file(line):") marked, errors and warnings in their colours.
 * Enter regrades the task from here, so fix, save, Enter reads the new log in place. */
#include <ctype.h>
#include <string.h>

#include "tui_screen.h"

const char tui_log_keys[] =
    "\xe2\x86\x91\xe2\x86\x93/jk scroll  Space/b page  / search  Enter regrade  e edit  q back";

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

static enum tui_role log_class(const char *s, size_t *loc)
{
    *loc = location_len(s);
    if (strstr(s, "error"))
        return TUI_C_WRONG;
    return strstr(s, "warning") ? TUI_C_WARN : TUI_C_NORMAL;
}

int tui_log_load(struct tui *ui, struct tui_pager *p, const struct task *t,
                 const struct task_result *r)
{
    if (!r || !result_build_log_path(r)[0] ||
        tui_lines_file(p, result_build_log_path(r), log_class) != 0) {
        tui_message(ui, TUI_C_NORMAL, "no build log for %s yet: Enter grades it", task_id(t));
        return -1;
    }
    if (p->n_lines == 0)
        tui_lines_addf(p, TUI_C_DIM, "(the build printed nothing)");
    snprintf(p->title, sizeof p->title, "build log: %s", task_id(t));
    return 0;
}

void tui_log_draw(struct tui *ui)
{
    tui_pager_view_draw(ui);
}

enum tui_action tui_log_key(struct tui *ui, int ch)
{
    if (!ui->pager.typing && (ch == '\n' || ch == '\r' || ch == KEY_ENTER)) {
        tui_post(ui, TUI_MSG_GRADE, ui->pager.task);
        return TUI_HANDLED;
    }
    return tui_pager_view_key(ui, ch);
}

/* tui_small.c — the "terminal too small" screen, shown by the loop instead of the screen on
 * top while the window is below TUI_MIN_COLS x TUI_MIN_LINES; the stack underneath is kept
 * and comes back as it was when the window grows. */
#include "tui_screen.h"

const char tui_small_keys[] = "q quit";

void tui_small_draw(struct tui *ui)
{
    (void)ui;
    int y = LINES / 2 - 1;
    if (y < 0)
        y = 0;
    tui_put(y, 0, COLS, TUI_C_WRONG, 0, "Terminal too small");
    tui_putf(y + 1, 0, COLS, TUI_C_NORMAL, 0, "%dx%d, need %dx%d", COLS, LINES, TUI_MIN_COLS,
             TUI_MIN_LINES);
    tui_put(y + 2, 0, COLS, TUI_C_DIM, 0, "enlarge it, or q to quit");
}

enum tui_action tui_small_key(struct tui *ui, int ch)
{
    (void)ui;
    return ch == 'q' || ch == 'Q' || ch == ('c' & 0x1f) ? TUI_QUIT : TUI_HANDLED;
}

/* tui_colors.h — every color of the TUI, by role, in one table.
 *
 * Drawing code names a role (TUI_C_PASS), never a color. Each role has a foreground and a
 * background for color terminals and an attribute that carries the same meaning without
 * color: with NO_COLOR set (https://no-color.org), on a monochrome terminal, or with
 * --no-color, only the attribute column is used, so a "wrong" task still stands out (bold)
 * from a "passed" one. -1 is the terminal's own default color (use_default_colors).
 */
#ifndef GRADER_TUI_COLORS_H
#define GRADER_TUI_COLORS_H

/*  role         fg              bg           attr with color       attr without color */
#define TUI_ROLES(C)                                                                      \
    C(NORMAL,    -1,             -1,          A_NORMAL,             A_NORMAL)            \
    C(DIM,       -1,             -1,          A_DIM,                A_DIM)               \
    C(TITLE,     COLOR_BLACK,    COLOR_CYAN,  A_BOLD,               A_REVERSE | A_BOLD)  \
    C(STATUS,    COLOR_BLACK,    COLOR_WHITE, A_NORMAL,             A_REVERSE)           \
    C(SELECTED,  -1,             -1,          A_REVERSE,            A_REVERSE)           \
    C(LESSON,    COLOR_CYAN,     -1,          A_BOLD,               A_BOLD)              \
    C(HEADING,   COLOR_YELLOW,   -1,          A_BOLD,               A_BOLD | A_UNDERLINE)\
    C(KEY,       COLOR_CYAN,     -1,          A_BOLD,               A_BOLD)              \
    C(CODE,      COLOR_GREEN,    -1,          A_NORMAL,             A_NORMAL)            \
    C(LOCATION,  COLOR_MAGENTA,  -1,          A_BOLD,               A_UNDERLINE)         \
    C(NOT_RUN,   -1,             -1,          A_DIM,                A_DIM)               \
    C(PASS,      COLOR_GREEN,    -1,          A_BOLD,               A_NORMAL)            \
    C(WRONG,     COLOR_RED,      -1,          A_BOLD,               A_BOLD)              \
    C(FAILURE,   COLOR_RED,      -1,          A_BOLD | A_REVERSE,   A_BOLD | A_REVERSE)  \
    C(WARN,      COLOR_YELLOW,   -1,          A_BOLD,               A_BOLD | A_UNDERLINE)\
    C(SKIP,      COLOR_BLUE,     -1,          A_BOLD,               A_DIM)               \
    C(RUNNING,   COLOR_CYAN,     -1,          A_BOLD,               A_BOLD)              \
    C(BAR_DONE,  COLOR_GREEN,    -1,          A_BOLD,               A_BOLD)              \
    C(BAR_TODO,  -1,             -1,          A_DIM,                A_DIM)               \
    C(BAR_REF,   COLOR_BLUE,     -1,          A_BOLD,               A_NORMAL)

enum tui_role {
#define TUI_ROLE_ENUM(name, fg, bg, attr, mono) TUI_C_##name,
    TUI_ROLES(TUI_ROLE_ENUM)
#undef TUI_ROLE_ENUM
    TUI_C_COUNT
};

#endif /* GRADER_TUI_COLORS_H */

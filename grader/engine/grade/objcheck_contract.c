/* objcheck_contract.c — the function names a contract header (lessons/L/T.h) declares. */
#include "objcheck.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static int known(const struct strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 1;
    return 0;
}

/* Comments, string literals and preprocessor lines blanked out, in place. */
static void blank_noise(char *t)
{
    for (char *p = t; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            size_t n = e ? (size_t)(e + 2 - p) : strlen(p);
            memset(p, ' ', n);
            p += n - 1;
        } else if ((p[0] == '/' && p[1] == '/') || (p[0] == '#' && (p == t || p[-1] == '\n'))) {
            while (*p && !(*p == '\n' && p[-1] != '\\'))
                *p++ = ' ';
            if (!*p)
                break;
        } else if (*p == '"') {
            char *q = p + 1;
            while (*q && *q != '"')
                q += q[0] == '\\' && q[1] ? 2 : 1;
            memset(p, ' ', (size_t)(q - p) + (*q ? 1 : 0));
            p = *q ? q : q - 1;
        }
    }
}

static int keyword(const char *w, size_t n)
{
    static const char *const kw[] = {"void", "int", "char", "float", "double", "return", "if",
                                     "while", "for", "switch", "sizeof", "alignof", "decltype",
                                     "__attribute__", "__declspec", "alignas", "static_assert",
                                     "extern", "noexcept", "defined"};
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (strlen(kw[i]) == n && strncmp(kw[i], w, n) == 0)
            return 1;
    return 0;
}

int objcheck_contract(const char *header, struct strlist *names)
{
    char *t = read_text_file(header, (size_t)1 << 20);
    if (!t) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    blank_noise(t);
    /* extern "C" { ... }: its string is blanked; its braces do not nest declarations */
    for (char *e = strstr(t, "extern"); e; e = strstr(e + 6, "extern")) {
        char *q = e + 6;
        while (*q == ' ' || *q == '\n' || *q == '\t')
            q++;
        if (*q == '{')
            *q = ' ';
    }
    int braces = 0, parens = 0;
    for (char *p = t; *p; p++) {
        if (*p == '{')
            braces++;
        else if (*p == '}')
            braces -= braces > 0;
        else if (*p == ')')
            parens -= parens > 0;
        else if (*p == '(')
            parens++;
        else if (objcheck_ident_char(*p) && !(*p >= '0' && *p <= '9') && (p == t || !objcheck_ident_char(p[-1]))) {
            char *w = p;
            while (objcheck_ident_char(*p))
                p++;
            char *q = p;
            while (*q == ' ' || *q == '\t' || *q == '\n')
                q++;
            if (*q == '(' && !braces && !parens && !keyword(w, (size_t)(p - w))) {
                char *name = strndup(w, (size_t)(p - w));
                if (!known(names, name))
                    strlist_push(names, name);
                free(name);
            }
            p--;
        }
    }
    free(t);
    return 0;
}


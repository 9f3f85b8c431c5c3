/* digest_figures.c — the figures' table (digest_figures.h): a figure's key, words and unit. */
#include "digest_figures.h"

#include <string.h>

static const struct {
    const char *key, *words, *unit;
} figures[PROFILE_FIGURE_COUNT] = {
#define F(name, w, u, how) {#name, w, u},
    PROFILE_FIGURES(F)
#undef F
};

const char *profile_figure_key(enum profile_figure f) { return figures[f].key; }
const char *profile_figure_words(enum profile_figure f) { return figures[f].words; }
const char *profile_figure_unit(enum profile_figure f) { return figures[f].unit; }

int profile_figure_find(const char *key, size_t len)
{
    for (int f = 0; f < PROFILE_FIGURE_COUNT; f++)
        if (strlen(figures[f].key) == len && strncmp(figures[f].key, key, len) == 0)
            return f;
    return -1;
}

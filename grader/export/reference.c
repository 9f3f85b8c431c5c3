/* reference.c — how far a class's speed ratios can be trusted: DIR/reference.csv, one row per
 * task with a speed case, from the reference times recorded in the students' results.
 *
 * In a class the reference is timed once for several gradings (refcache.h), and afresh now and
 * then; every student's ratio is taken against the measurement of that moment. The spread of
 * those measurements (the GPU's own drift over the class) and the widest spread inside one of
 * them (repetition to repetition) bound how much a ratio near the task's bar means. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook.h"
#include "util.h"
#include "writer.h"

struct ref_stats {
    size_t timed;          /* gradings that timed the reference themselves */
    size_t used;           /* gradings with a reference time */
    double lo, hi;         /* least and greatest median used */
    double rep_spread;     /* widest (slowest - fastest) / fastest inside one measurement */
};

static double speed_num(const cJSON *speed, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(speed, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void column_stats(const struct gb_book *b, size_t col, struct ref_stats *st)
{
    memset(st, 0, sizeof *st);
    for (size_t row = 0; row < b->n_rows; row++) {
        const struct gb_task *t = gb_cell(b, row, col);
        const cJSON *speed = t && t->detail ? cJSON_GetObjectItemCaseSensitive(t->detail, "speed")
                                            : NULL;
        double ms = speed_num(speed, "ref_time_ms");
        if (ms <= 0)
            continue;
        st->lo = st->used == 0 || ms < st->lo ? ms : st->lo;
        st->hi = st->used == 0 || ms > st->hi ? ms : st->hi;
        st->used++;
        st->timed += !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(speed, "ref_shared"));
        double fast = speed_num(speed, "ref_min_ms"), slow = speed_num(speed, "ref_max_ms");
        if (fast > 0 && slow >= fast && (slow - fast) / fast > st->rep_spread)
            st->rep_spread = (slow - fast) / fast;
    }
}

char *gb_book_reference_csv(const struct gb_book *b)
{
    struct strbuf out = {0};
    sb_puts(&out, "task,gradings,reference_timings,median_ms_min,median_ms_max,"
                  "drift_pct,widest_rep_spread_pct\r\n");
    for (size_t col = 0; col < b->n_cols; col++) {
        struct ref_stats st;
        column_stats(b, col, &st);
        if (st.used == 0)
            continue;
        wb_csv(&out, b->cols[col].id);
        sb_printf(&out, ",%zu,%zu,%.6g,%.6g,%.2f,%.2f\r\n", st.used, st.timed, st.lo, st.hi,
                  100 * (st.hi - st.lo) / st.lo, 100 * st.rep_spread);
    }
    return sb_take(&out);
}

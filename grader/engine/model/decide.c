/* decide.c — facts in, one outcome out (decide.h). */
#include "decide.h"

#include <stdarg.h>
#include <stdlib.h>

#include "model_impl.h"

void fact_vrecord(struct grade_facts *f, enum grader_outcome o, const char *fmt, va_list ap)
{
    if ((unsigned)o >= OUTCOME_COUNT || o == OUTCOME_PASSED || fact_has(f, o))
        return;
    f->bits |= 1u << o;
    f->reason[o] = xvasprintf(fmt, ap);
}

void fact_record(struct grade_facts *f, enum grader_outcome o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fact_vrecord(f, o, fmt, ap);
    va_end(ap);
}

int fact_has(const struct grade_facts *f, enum grader_outcome o)
{
    return (unsigned)o < OUTCOME_COUNT && (f->bits & (1u << o)) != 0;
}

void fact_drop(struct grade_facts *f, enum grader_outcome o)
{
    if (!fact_has(f, o))
        return;
    f->bits &= ~(1u << o);
    free(f->reason[o]);
    f->reason[o] = NULL;
}

int facts_none(const struct grade_facts *f)
{
    return f->bits == 0;
}

void facts_free(struct grade_facts *f)
{
    for (int o = 0; o < OUTCOME_COUNT; o++)
        free(f->reason[o]);
    f->bits = 0;
}

/* Scoring: the whole weight for a pass, nothing otherwise; a skip puts nothing at stake. */
static const char *score_words(enum grader_outcome o)
{
    return o == OUTCOME_PASSED ? "weight / weight" : o == OUTCOME_SKIPPED ? "0 / 0" : "0 / weight";
}

enum grader_outcome outcome_decide(struct task_result *r, const struct grade_facts *f,
                                   int cancelled)
{
    enum grader_outcome o = OUTCOME_PASSED;
    const char *why = "";
    if (cancelled) {
        o = OUTCOME_NOT_RUN;
        why = "cancelled";
    } else {
        for (int k = 0; k < OUTCOME_COUNT; k++)
            if (fact_has(f, (enum grader_outcome)k)) {
                o = (enum grader_outcome)k;
                why = f->reason[k];
                break;
            }
    }
    r->outcome = o;
    if (why[0] || o != OUTCOME_PASSED)
        result_set_reason(r, "%s", why);
    r->score = o == OUTCOME_PASSED ? r->max_score : 0;
    if (o == OUTCOME_SKIPPED)
        r->max_score = 0;
    return o;
}

void outcome_table_markdown(FILE *out)
{
    fputs("| outcome | JSON key | meaning | score |\n|---|---|---|---|\n", out);
    for (int k = 0; k < OUTCOME_COUNT; k++) {
        enum grader_outcome o = (enum grader_outcome)k;
        fprintf(out, "| %s | `%s` | %s | %s |\n", outcome_name(o), outcome_key(o),
                outcome_meaning(o), score_words(o));
    }
}

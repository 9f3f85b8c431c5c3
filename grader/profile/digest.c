/* digest.c — the profile digest (digest.h): the finding, and the digest as text and JSON. */
#include "digest.h"
#include "grade_ncu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================= trouble */
const char *profile_trouble(const char *text, char *buf, size_t len)
{
    /* the engine's reader names the trouble (grade_ncu.h); a student reading a digest needs
     * the two cases it can act on said its way */
    if (!ncu_trouble(text, buf, len))
        return NULL;
    if (strstr(text, "ERR_NVGPUCTRPERM"))
        snprintf(buf, len, "ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM): "
                 "let every user read them with `options nvidia "
                 "NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d/ and a reboot "
                 "(student code runs without capabilities, so running as an administrator "
                 "does not help it)");
    else if (strncmp(buf, "ncu: ", 5) == 0) {
        char line[400];
        snprintf(line, sizeof line, "%s", buf + 5);
        snprintf(buf, len, "%s: %s", strstr(text, "not supported") ? "ncu cannot profile this GPU"
                                                                     : "ncu failed", line);
    }
    return buf;
}

/* ======================================================================= the finding */
static void set_finding(struct profile_digest *d, const char *key, char *text, const char *teach)
{
    d->key = xstrdup(key);
    d->finding = text;
    d->teach = xstrdup(teach ? teach : "");
}

/* The figures of both sides as rules read them. */
static void both(const struct profile_digest *d, double fig[2][PROFILE_FIGURE_COUNT])
{
    for (int s = 0; s < 2; s++)
        memcpy(fig[s], d->side[s].fig, sizeof fig[s]);
}

/* Close kernels are the answer only when the whole call is close too: where the harness saw
 * the call slower than its kernels explain (copies that do not overlap, pages that migrate on
 * demand), the lesson's rules get their say on the call's time (call_ms), and "outside" is said
 * when none names why. A rule that holds goes before "ceiling": a kernel at a ceiling with a
 * named waste (loads from L1 again for every use) is told the waste. */
static void find(struct profile_digest *d, const struct profile_rules *rules, const char *task)
{
    double *st = d->side[RULE_STUDENT].fig, *rf = d->side[RULE_REF].fig;
    st[PF_call_ms] = d->harness.time_ms;
    rf[PF_call_ms] = d->harness.ref_time_ms;
    double s = st[PF_time_ms], r = rf[PF_time_ms];
    double cs = st[PF_call_ms], cr = rf[PF_call_ms];
    /* the call is close when the harness did not time it, when it is within PROFILE_CLOSE,
     * or when it passes the task's speed bar (a reference against itself, on a noisy day) */
    const struct profile_harness *h = &d->harness;
    int call_close = !(cs > 0 && cr > 0) || cs <= PROFILE_CLOSE * cr ||
                     (h->threshold > 0 && h->ratio >= h->threshold);
    if (s <= PROFILE_CLOSE * r && call_close) {
        set_finding(d, "close", xasprintf("your kernels take %.3g ms where the reference's "
                    "take %.3g ms: close to the reference", s, r), NULL);
        return;
    }
    double fig[2][PROFILE_FIGURE_COUNT], best = 0;
    both(d, fig);
    const struct profile_rule *win = NULL;
    for (size_t i = 0; rules && i < rules->n; i++) {
        double gap;
        if (profile_rule_for(&rules->r[i], task) && profile_rule_holds(&rules->r[i], fig, &gap) &&
            (!win || gap > best)) {
            win = &rules->r[i];
            best = gap;
        }
    }
    if (win) {
        set_finding(d, win->key, profile_rule_say(win, fig), win->teach);
        return;
    }
    if (s <= PROFILE_CLOSE * r) {
        set_finding(d, "outside", xasprintf("your kernels take %.3g ms where the reference's "
                    "take %.3g ms, but your whole call takes %.3g ms against its %.3g ms: the "
                    "time goes outside the kernels (copies, page faults, waiting)", s, r, cs,
                    cr), NULL);
        return;
    }
    if (st[PF_dram_ceiling_pct] >= PROFILE_CEILING_PCT || st[PF_sm_pct] >= PROFILE_CEILING_PCT) {
        int dram = st[PF_dram_ceiling_pct] >= PROFILE_CEILING_PCT;
        set_finding(d, "ceiling", xasprintf("your kernels run at the ceiling: %s at %.0f %% of "
                    "%s; to be faster they must do less work (the reference's take %.3g ms, "
                    "yours %.3g ms)", dram ? "DRAM" : "the SMs",
                    dram ? st[PF_dram_ceiling_pct] : st[PF_sm_pct],
                    dram ? "the copy ceiling" : "their peak", r, s), NULL);
        return;
    }
    set_finding(d, "unexplained", xasprintf("your kernels take %.3g ms where the reference's "
                "take %.3g ms, for no reason the lesson's rules name: compare the figures below",
                s, r), NULL);
}

struct profile_digest *profile_digest_make(const char *student_text, const char *ref_text,
                                           const char *unavailable_why,
                                           const struct profile_rules *rules, const char *task,
                                           const struct profile_harness *h)
{
    const char *const texts[2] = {student_text, ref_text}, *const times[2] = {NULL, NULL};
    return profile_digest_make_timed(texts, times, unavailable_why, rules, task, h);
}

struct profile_digest *profile_digest_make_timed(const char *const texts[2],
                                                 const char *const times[2],
                                                 const char *unavailable_why,
                                                 const struct profile_rules *rules,
                                                 const char *task,
                                                 const struct profile_harness *h)
{
    struct profile_digest *d = xcalloc(1, sizeof *d);
    d->harness = *h;
    char why[512] = "", err[256] = "";
    const char *who[2] = {"your program", "the reference"};
    if (unavailable_why) {
        snprintf(why, sizeof why, "%s", unavailable_why);
    } else {
        for (int s = 0; s < 2 && !why[0]; s++) {
            char t[400];
            if (!texts[s])
                snprintf(why, sizeof why, "ncu gave nothing for %s", who[s]);
            else if (profile_trouble(texts[s], t, sizeof t))
                snprintf(why, sizeof why, "%s", t);
            else if (times[s] && profile_trouble(times[s], t, sizeof t))
                snprintf(why, sizeof why, "%s", t);
            else if (profile_side_read_timed(texts[s], times[s], &d->side[s], err, sizeof err) != 0)
                snprintf(why, sizeof why, "%s, under ncu: %s", who[s], err);
        }
    }
    if (why[0]) {
        profile_side_free(&d->side[0]);
        profile_side_free(&d->side[1]);
        d->why = xstrdup(why);
        set_finding(d, "unavailable", xasprintf("no profile: %s", why), NULL);
        return d;
    }
    d->available = 1;
    find(d, rules, task);
    return d;
}

void profile_digest_free(struct profile_digest *d)
{
    if (!d)
        return;
    for (int s = 0; s < 2; s++)
        profile_side_free(&d->side[s]);
    free(d->why);
    free(d->key);
    free(d->finding);
    free(d->teach);
    free(d->rules_error);
    free(d);
}

/* ======================================================================= text */
static void put_figure(struct strbuf *b, double v, const char *unit)
{
    char s[48];
    if (isnan(v))
        snprintf(s, sizeof s, "-");
    else /* whole numbers from 1000 up: 524288 atomics, not 5.24e+05 */
        snprintf(s, sizeof s, fabs(v) >= 1000 ? "%.0f%s%s" : "%.3g%s%s", v, unit[0] ? " " : "",
                 unit);
    sb_printf(b, "  %-14s", s);
}

static void harness_line(const struct profile_digest *d, const char *indent, struct strbuf *b)
{
    const struct profile_harness *h = &d->harness;
    sb_printf(b, "%sthe harness measured: yours ", indent);
    put_figure(b, h->time_ms, "ms");
    sb_puts(b, "the reference's ");
    put_figure(b, h->ref_time_ms, "ms");
    char rt[24];
    if (!isnan(h->ratio))
        sb_printf(b, "ratio %s (bar %.2f)", ratio_text(h->ratio, rt, sizeof rt), h->threshold);
    sb_puts(b, "\n");
}

static void stalls(const struct profile_side *s, struct strbuf *b)
{
    for (int k = 0; k < PROFILE_STALLS && s->stall[k][0]; k++)
        sb_printf(b, "%s%s %.3g", k ? ", " : "", s->stall[k], s->stall_v[k]);
    if (!s->stall[0][0])
        sb_puts(b, "-");
}

void profile_digest_text(const struct profile_digest *d, const char *indent, struct strbuf *b)
{
    sb_printf(b, "%sprofile: %s", indent, d->finding);
    if (d->teach[0])
        sb_printf(b, " (%s)", d->teach);
    sb_puts(b, "\n");
    if (d->rules_error)
        sb_printf(b, "%s  rules not read: %s\n", indent, d->rules_error);
    if (!d->available) {
        harness_line(d, indent, b);
        return;
    }
    sb_printf(b, "%s  %-44s  %-14s  %-14s\n", indent, "", "yours", "reference");
    for (int f = 0; f < PROFILE_FIGURE_COUNT; f++) {
        if (isnan(d->side[0].fig[f]) && isnan(d->side[1].fig[f]))
            continue;
        sb_printf(b, "%s  %-44s", indent, profile_figure_words(f));
        for (int s = 0; s < 2; s++)
            put_figure(b, d->side[s].fig[f], profile_figure_unit(f));
        sb_puts(b, "\n");
    }
    sb_printf(b, "%s  %-44s  %-14s  %-14s\n", indent, "bound", profile_side_bound(&d->side[0]),
              profile_side_bound(&d->side[1]));
    for (int s = 0; s < 2; s++) {
        sb_printf(b, "%s  %s stalls (cycles per instruction): ", indent,
                  s ? "the reference's" : "your");
        stalls(&d->side[s], b);
        sb_puts(b, "\n");
        const struct profile_side *p = &d->side[s];
        for (size_t i = 0; i < p->n && i < 4; i++) {
            /* the name without its parameter list: the launch shape fits on the line */
            const char *name = p->k[i].name, *paren = strchr(name, '(');
            int len = paren && paren > name ? (int)(paren - name) : (int)strlen(name);
            sb_printf(b, "%s    %.*s <<<%s, %s>>> %.3g ms, %.0f registers\n", indent,
                      len > 48 ? 48 : len, name, p->k[i].grid, p->k[i].block,
                      p->k[i].fig[PF_time_ms], p->k[i].fig[PF_registers]);
        }
        if (p->n > 4)
            sb_printf(b, "%s    ... %zu launches in all\n", indent, p->n);
        if (p->replayed < p->n)
            sb_printf(b, "%s    counters of %zu of the %zu launches, the first of each kernel and "
                      "shape; every launch timed\n", indent, p->replayed, p->n);
    }
    harness_line(d, indent, b);
}

/* ======================================================================= JSON */
static void add_number(cJSON *o, const char *key, double v)
{
    if (isnan(v) || isinf(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static cJSON *side_json(const struct profile_side *s)
{
    cJSON *o = cJSON_CreateObject();
    for (int f = 0; f < PROFILE_FIGURE_COUNT; f++)
        add_number(o, profile_figure_key(f), s->fig[f]);
    cJSON_AddStringToObject(o, "bound", profile_side_bound(s));
    cJSON *st = cJSON_AddArrayToObject(o, "stalls");
    for (int k = 0; k < PROFILE_STALLS && s->stall[k][0]; k++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "reason", s->stall[k]);
        add_number(x, "cycles_per_issue", s->stall_v[k]);
        cJSON_AddItemToArray(st, x);
    }
    cJSON_AddNumberToObject(o, "launches_replayed", (double)s->replayed);
    cJSON *ks = cJSON_AddArrayToObject(o, "launches");
    for (size_t i = 0; i < s->n; i++) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddStringToObject(k, "name", s->k[i].name);
        cJSON_AddStringToObject(k, "grid", s->k[i].grid);
        cJSON_AddStringToObject(k, "block", s->k[i].block);
        for (int f = 0; f < PROFILE_FIGURE_COUNT; f++)
            if (f != PF_kernels)
                add_number(k, profile_figure_key(f), s->k[i].fig[f]);
        cJSON_AddItemToArray(ks, k);
    }
    return o;
}

cJSON *profile_digest_json(const struct profile_digest *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "available", d->available);
    if (d->why)
        cJSON_AddStringToObject(o, "why", d->why);
    else
        cJSON_AddNullToObject(o, "why");
    cJSON *f = cJSON_AddObjectToObject(o, "finding");
    cJSON_AddStringToObject(f, "key", d->key);
    cJSON_AddStringToObject(f, "text", d->finding);
    cJSON_AddStringToObject(f, "teach", d->teach);
    if (d->rules_error)
        cJSON_AddStringToObject(o, "rules_error", d->rules_error);
    if (d->available) {
        cJSON_AddItemToObject(o, "student", side_json(&d->side[RULE_STUDENT]));
        cJSON_AddItemToObject(o, "reference", side_json(&d->side[RULE_REF]));
    }
    cJSON *h = cJSON_AddObjectToObject(o, "harness");
    add_number(h, "time_ms", d->harness.time_ms);
    add_number(h, "ref_time_ms", d->harness.ref_time_ms);
    add_number(h, "ratio", d->harness.ratio);
    add_number(h, "threshold", d->harness.threshold);
    return o;
}

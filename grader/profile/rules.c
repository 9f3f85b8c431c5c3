/* rules.c — a lesson's profile rules (rules.h): the file, the expression, the evaluation. */
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ======================================================================= the expression */
static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* side.figure at p: 0 with *o filled and *p moved, -1 with why */
static int parse_figure(const char **pp, struct rule_operand *o, char *err, size_t errlen)
{
    const char *p = *pp, *dot = p;
    while (isalnum((unsigned char)*dot) || *dot == '_')
        dot++;
    if (*dot != '.') {
        snprintf(err, errlen, "expected student.FIGURE, ref.FIGURE or a number at \"%.20s\"", p);
        return -1;
    }
    size_t sl = (size_t)(dot - p);
    if (sl == 7 && strncmp(p, "student", 7) == 0)
        o->side = RULE_STUDENT;
    else if (sl == 3 && strncmp(p, "ref", 3) == 0)
        o->side = RULE_REF;
    else {
        snprintf(err, errlen, "unknown side \"%.*s\" (student or ref)", (int)sl, p);
        return -1;
    }
    const char *f = dot + 1, *e = f;
    while (isalnum((unsigned char)*e) || *e == '_')
        e++;
    int fig = profile_figure_find(f, (size_t)(e - f));
    if (fig < 0) {
        snprintf(err, errlen, "unknown figure \"%.*s\"", (int)(e - f), f);
        return -1;
    }
    o->fig = (enum profile_figure)fig;
    *pp = e;
    return 0;
}

/* number | side.figure | number * side.figure */
static int parse_operand(const char **pp, struct rule_operand *o, char *err, size_t errlen)
{
    const char *p = skip_space(*pp);
    o->factor = 1;
    o->side = RULE_NUMBER;
    o->fig = 0;
    if (isdigit((unsigned char)*p) || *p == '.') {
        char *end;
        errno = 0;
        o->factor = strtod(p, &end);
        if (errno || !isfinite(o->factor)) {
            snprintf(err, errlen, "not a number: \"%.20s\"", p);
            return -1;
        }
        p = skip_space(end);
        if (*p != '*') {
            *pp = p;
            return 0;
        }
        p = skip_space(p + 1);
    }
    if (parse_figure(&p, o, err, errlen) != 0)
        return -1;
    *pp = p;
    return 0;
}

static int parse_op(const char **pp, enum rule_op *op, char *err, size_t errlen)
{
    const char *p = skip_space(*pp);
    if (*p != '<' && *p != '>') {
        snprintf(err, errlen, "expected >, >=, < or <= at \"%.20s\"", p);
        return -1;
    }
    int eq = p[1] == '=';
    *op = *p == '>' ? (eq ? RULE_GE : RULE_GT) : (eq ? RULE_LE : RULE_LT);
    *pp = p + 1 + eq;
    return 0;
}

int profile_expr_parse(const char *text, struct profile_rule *rule, char *err, size_t errlen)
{
    const char *p = text;
    free(rule->cmp);
    rule->cmp = NULL;
    rule->n_cmp = 0;
    for (;;) {
        struct rule_cmp c;
        if (parse_operand(&p, &c.l, err, errlen) || parse_op(&p, &c.op, err, errlen) ||
            parse_operand(&p, &c.r, err, errlen))
            return -1;
        if (c.l.side == RULE_NUMBER && c.r.side == RULE_NUMBER) {
            snprintf(err, errlen, "a comparison of two numbers");
            return -1;
        }
        rule->cmp = xrealloc(rule->cmp, (rule->n_cmp + 1) * sizeof *rule->cmp);
        rule->cmp[rule->n_cmp++] = c;
        p = skip_space(p);
        if (!*p)
            return 0;
        if (strncmp(p, "and", 3) != 0 || !isspace((unsigned char)p[3])) {
            snprintf(err, errlen, "expected \"and\" or the end at \"%.20s\"", p);
            return -1;
        }
        p += 3;
    }
}

/* ======================================================================= evaluation */
static double operand_value(const struct rule_operand *o, const double fig[2][PROFILE_FIGURE_COUNT])
{
    return o->side == RULE_NUMBER ? o->factor : o->factor * fig[o->side][o->fig];
}

int profile_rule_holds(const struct profile_rule *rule, const double fig[2][PROFILE_FIGURE_COUNT],
                       double *gap)
{
    *gap = 0;
    for (size_t i = 0; i < rule->n_cmp; i++) {
        const struct rule_cmp *c = &rule->cmp[i];
        double l = operand_value(&c->l, fig), r = operand_value(&c->r, fig);
        if (isnan(l) || isnan(r))
            return 0; /* a figure not measured: nothing to say */
        int holds = c->op == RULE_GT ? l > r : c->op == RULE_GE ? l >= r
                  : c->op == RULE_LT ? l < r : l <= r;
        if (!holds)
            return 0;
        if (i == 0) {
            double num = c->op <= RULE_GE ? l : r, den = c->op <= RULE_GE ? r : l;
            *gap = den > 0 ? num / den : num > 0 ? INFINITY : 1;
        }
    }
    return rule->n_cmp > 0;
}

/* The first comparison's figure (the first operand that names one). */
static const struct rule_operand *main_figure(const struct profile_rule *rule)
{
    if (!rule->n_cmp)
        return NULL;
    return rule->cmp[0].l.side != RULE_NUMBER ? &rule->cmp[0].l : &rule->cmp[0].r;
}

static void put_value(struct strbuf *b, double v)
{
    if (isnan(v))
        sb_puts(b, "?");
    else
        sb_printf(b, fabs(v) >= 1000 ? "%.0f" : "%.3g", v);
}

char *profile_rule_say(const struct profile_rule *rule, const double fig[2][PROFILE_FIGURE_COUNT])
{
    struct strbuf b = {0};
    const struct rule_operand *m = main_figure(rule);
    for (const char *p = rule->say; *p;) {
        if (p[0] == '%' && p[1] == '%') { /* a percent sign of the text */
            sb_add(&b, p, 1);
            p += 2;
            continue;
        }
        const char *end = *p == '%' ? strchr(p + 1, '%') : NULL;
        if (!end) {
            sb_add(&b, p++, 1);
            continue;
        }
        const char *name = p + 1;
        size_t len = (size_t)(end - name);
        struct rule_operand o = {0};
        char err[128];
        const char *q = name;
        if ((len == 7 && strncmp(name, "student", 7) == 0) ||
            (len == 3 && strncmp(name, "ref", 3) == 0)) {
            put_value(&b, m ? fig[len == 3][m->fig] : NAN);
        } else if (parse_figure(&q, &o, err, sizeof err) == 0 && q == end) {
            put_value(&b, fig[o.side][o.fig]);
        } else {
            sb_add(&b, p, 1); /* a lone percent sign */
            p++;
            continue;
        }
        p = end + 1;
    }
    return sb_take(&b);
}

int profile_rule_for(const struct profile_rule *rule, const char *task)
{
    if (!rule->tasks)
        return 1;
    for (size_t i = 0; i < rule->n_tasks; i++)
        if (strcmp(rule->tasks[i], task) == 0)
            return 1;
    return 0;
}

/* ======================================================================= the file */
static void rule_free(struct profile_rule *r)
{
    free(r->key);
    free(r->say);
    free(r->teach);
    for (size_t i = 0; i < r->n_tasks; i++)
        free(r->tasks[i]);
    free(r->tasks);
    free(r->cmp);
}

void profile_rules_free(struct profile_rules *rules)
{
    for (size_t i = 0; i < rules->n; i++)
        rule_free(&rules->r[i]);
    free(rules->r);
    memset(rules, 0, sizeof *rules);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

/* One key's value, given whole (continuation lines joined), on the last rule. */
static int set_key(struct profile_rule *r, const char *key, const char *value, char *err,
                   size_t errlen)
{
    if (strcmp(key, "when") == 0)
        return profile_expr_parse(value, r, err, errlen) == 0 ? 0
             : (r->n_cmp = 0, -1);
    char **slot = strcmp(key, "say") == 0 ? &r->say : strcmp(key, "teach") == 0 ? &r->teach : NULL;
    if (slot) {
        free(*slot);
        *slot = xstrdup(value);
        return 0;
    }
    if (strcmp(key, "tasks") == 0) {
        char *copy = xstrdup(value), *save = NULL;
        for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
            r->tasks = xrealloc(r->tasks, (r->n_tasks + 1) * sizeof *r->tasks);
            r->tasks[r->n_tasks++] = xstrdup(w);
        }
        free(copy);
        return 0;
    }
    snprintf(err, errlen, "unknown key \"%s\" (when, say, teach, tasks)", key);
    return -1;
}

/* The rule's keys complete: when and say. */
static int rule_complete(const struct profile_rule *r, char *err, size_t errlen)
{
    if (r->n_cmp && r->say)
        return 0;
    snprintf(err, errlen, "rule \"%s\" has no %s", r->key, r->n_cmp ? "say" : "when");
    return -1;
}

struct pending {
    char key[32];
    struct strbuf value;
    int line;
};

static int flush_key(struct profile_rules *rules, struct pending *k, int *line, char *err,
                     size_t errlen)
{
    if (!k->key[0])
        return 0;
    char *v = sb_take(&k->value);
    int rc = set_key(&rules->r[rules->n - 1], k->key, trim(v), err, errlen);
    free(v);
    k->key[0] = 0;
    if (rc)
        *line = k->line;
    return rc;
}

int profile_rules_parse(const char *text, const char *name, struct profile_rules *rules,
                        char *err, size_t errlen)
{
    memset(rules, 0, sizeof *rules);
    char why[256] = "";
    int line = 0, bad = 0, rule_line = 0;
    struct pending k = {{0}, {0}, 0};
    for (const char *p = text ? text : ""; *p && !bad;) {
        size_t len = strcspn(p, "\n");
        char *raw = xasprintf("%.*s", (int)len, p), *l = trim(raw);
        line++;
        int cont = isspace((unsigned char)*p) && *l;
        p += len + (p[len] == '\n');
        if (!*l || *l == ';' || *l == '#') {
            free(raw);
            continue;
        }
        if (cont && k.key[0]) {
            sb_puts(&k.value, " ");
            sb_puts(&k.value, l);
        } else if (flush_key(rules, &k, &line, why, sizeof why) != 0) {
            bad = 1;
        } else if (*l == '[') {
            size_t n = strlen(l);
            if (l[n - 1] != ']' || strncmp(l, "[rule.", 6) != 0 || n < 8) {
                snprintf(why, sizeof why, "expected [rule.NAME]");
                bad = 1;
            } else if (rules->n && rule_complete(&rules->r[rules->n - 1], why, sizeof why)) {
                line = rule_line;
                bad = 1;
            } else {
                rules->r = xrealloc(rules->r, (rules->n + 1) * sizeof *rules->r);
                struct profile_rule *r = &rules->r[rules->n++];
                memset(r, 0, sizeof *r);
                r->key = xasprintf("%.*s", (int)(n - 7), l + 6);
                r->line = rule_line = line;
            }
        } else {
            char *eq = strchr(l, '=');
            if (!eq || !rules->n) {
                snprintf(why, sizeof why, !eq ? "expected key = value" : "a key before any [rule.NAME]");
                bad = 1;
            } else {
                *eq = 0;
                snprintf(k.key, sizeof k.key, "%s", trim(l));
                sb_puts(&k.value, eq + 1);
                k.line = line;
            }
        }
        free(raw);
    }
    if (!bad && flush_key(rules, &k, &line, why, sizeof why) != 0)
        bad = 1;
    if (!bad && rules->n && rule_complete(&rules->r[rules->n - 1], why, sizeof why)) {
        line = rule_line;
        bad = 1;
    }
    free(sb_take(&k.value));
    if (bad) {
        snprintf(err, errlen, "%s:%d: %s", name, line, why);
        profile_rules_free(rules);
        return -1;
    }
    return 0;
}

int profile_rules_load(const char *path, struct profile_rules *rules, char *err, size_t errlen)
{
    memset(rules, 0, sizeof *rules);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct strbuf b = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&b, buf, n);
    fclose(f);
    char *text = sb_take(&b);
    int rc = profile_rules_parse(text, path, rules, err, errlen);
    free(text);
    return rc;
}

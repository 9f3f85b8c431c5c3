/* rules.h — a lesson's profile rules: lessons/L/profile.ini, data, not code.
 *
 *   [rule.uncoalesced]                       ; the finding's key
 *   tasks = transpose                        ; optional: the tasks it is for (default: all)
 *   when  = student.sectors_per_store > 2 * ref.sectors_per_store
 *           and student.sectors_per_store >= 8
 *   say   = your global stores take %student% sectors per request where the reference's
 *           take %ref%: the warp's threads write addresses far apart
 *   teach = Lesson 02, Coalescing
 *
 * `when` is one or more comparisons joined by `and`; a comparison is `operand op operand`,
 * op one of > >= < <=, an operand a number, `side.figure` or `number * side.figure`, side
 * `student` or `ref`, figure a name of digest.h's figure table. A comparison with a figure
 * not measured (either side) is false. `say` names figures as %student.figure% and
 * %ref.figure%; %student% and %ref% are the first comparison's figure on each side.
 * Values continue on indented lines. Lines starting with ; or # are comments.
 *
 * A rule's gap is how far its first comparison holds: left / right for > and >=, right /
 * left for < and <= (1: just holds). Of the rules that hold, the largest gap is the finding.
 * Errors (syntax, an unknown key, figure or side, a rule without when or say) are found at
 * load and name file:line.
 */
#ifndef GRADER_PROFILE_RULES_H
#define GRADER_PROFILE_RULES_H

#include <stddef.h>

#include "digest_figures.h"

enum rule_side { RULE_NUMBER = -1, RULE_STUDENT = 0, RULE_REF = 1 };
enum rule_op { RULE_GT, RULE_GE, RULE_LT, RULE_LE };

struct rule_operand {
    enum rule_side side;    /* RULE_NUMBER: the number alone */
    enum profile_figure fig;
    double factor;          /* number * side.figure; the number itself for RULE_NUMBER */
};

struct rule_cmp {
    struct rule_operand l, r;
    enum rule_op op;
};

struct profile_rule {
    char *key, *say, *teach;
    char **tasks;           /* NULL: every task of the lesson */
    size_t n_tasks;
    struct rule_cmp *cmp;
    size_t n_cmp;
    int line;               /* of its section */
};

struct profile_rules {
    struct profile_rule *r;
    size_t n;
};

/* Parses one `when` expression into rule (cmp, n_cmp); 0, or -1 with why in err. */
int profile_expr_parse(const char *text, struct profile_rule *rule, char *err, size_t errlen);

/* Loads rules from text (name: the file's name for errors). 0 with rules filled, or -1 with
 * "name:line: why" in err (rules empty). */
int profile_rules_parse(const char *text, const char *name, struct profile_rules *rules,
                        char *err, size_t errlen);
/* The same from a file; a file that does not exist is no rules (0). */
int profile_rules_load(const char *path, struct profile_rules *rules, char *err, size_t errlen);
void profile_rules_free(struct profile_rules *rules);

/* Whether rule applies to task (its tasks list, or every task). */
int profile_rule_for(const struct profile_rule *rule, const char *task);

/* Evaluates rule on figures [side][figure]; 1 when it holds, with *gap set. */
int profile_rule_holds(const struct profile_rule *rule,
                       const double fig[2][PROFILE_FIGURE_COUNT], double *gap);

/* rule's say with its placeholders filled from the figures; malloc'd. */
char *profile_rule_say(const struct profile_rule *rule,
                       const double fig[2][PROFILE_FIGURE_COUNT]);

#endif /* GRADER_PROFILE_RULES_H */

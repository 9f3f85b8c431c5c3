#!/usr/bin/env bash
# The protocol between a task binary and the grader (exit statuses, --list flag words, TAP
# report keys and status words) is written once, in common/lab_protocol.h. This test fails
# when a file that speaks it — the task harness in common/, the grader's parsers and grading
# steps, the stand-in task binary of the tests — restates one as a literal again.
source "$(dirname "$0")/../lib.sh"

# The files that speak the protocol (lab_protocol.h itself excepted).
speakers() {
  ls common/*.c common/*.cu common/*.h \
     grader/engine/model/parse.[ch] grader/engine/model/tap.[ch] grader/engine/grade/grade*.[ch] \
     grader/engine/model/decide.[ch] tests/stand-in/*.[ch] tests/tui/course/common/*.c 2>/dev/null |
    grep -v '^common/lab_protocol\.h$'
}

# The keys of the report's YAML blocks and comments.
KEYS='(status|time_ms|time_min_ms|time_max_ms|reps|throughput|unit|floor_ms|reps_checked|checked|bad|max_abs_err|max_rel_err|first_mismatch|mismatches|note|program|task|seed|device|check-seed)'
# One extended regular expression per kind of restatement.
PATTERNS=(
  'exit_status[[:space:]]*[!=]=[[:space:]]*(1|2|3|77|99)\b'        # an exit status by number
  'probe[[:space:]]*[!=]=[[:space:]]*(0|1|2|3|77|99)\b'
  '\b(_?exit|return)[[:space:]]*\(?[[:space:]]*(3|77|99)[[:space:]]*\)?;'
  '"(2|3|77|99)"'
  '"(speed|small)"|"speed,small"'                                  # --list flag words
  '("|\\n)[[:space:]]*'"$KEYS"':'                                   # a report key as written
  '(strn?cmp|yaml_[a-z]+)\([^;]*"'"$KEYS"'"'                          # ... or as read
  '"(pass|fail|skip)"'                                             # status words
)

# restated FILE...: prints every line of the files that matches a pattern.
restated() {
  local p
  for p in "${PATTERNS[@]}"; do grep -nHE -- "$p" "$@"; done
}

# The check can fail: each kind of restatement is caught in a file made for it.
probe=$TEST_TMP/probe.c
cat >"$probe" <<'C'
if (res.exit_status == 77) return 1;
exit(3);
char *argv[] = {"--error-exitcode", "99"};
c->flags = strstr(flags, "speed") ? 1 : 0;
if (strcmp(key, "floor_ms") == 0) x = 1;
fprintf(f, "  status: %s\n  time_ms: %g\n", "pass", ms);
fprintf(f, "x\n  floor_ms: %g\n", ms);
yaml_string(f, "note", m->note);
C
n=$(restated "$probe" | cut -d: -f2 | sort -u | wc -l)
[ "$n" -eq 8 ] && ok "each restatement of the protocol is caught ($n of 8 lines)" ||
  { bad "only $n of 8 restated lines caught"; restated "$probe" | sed 's/^/    /'; }

mapfile -t files < <(speakers)
[ ${#files[@]} -gt 10 ] && ok "${#files[@]} files speak the protocol" || bad "too few files found: ${#files[@]}"
grep -q '#include "lab_protocol.h"' common/lab.h && ok "lab.h includes lab_protocol.h" ||
  bad "lab.h does not include lab_protocol.h"
out=$(restated "${files[@]}")
if [ -n "$out" ]; then
  bad "the protocol is restated outside common/lab_protocol.h (use its names):"
  printf '%s\n' "$out" | sed 's/^/    /'
else
  ok "no file restates the protocol outside common/lab_protocol.h"
fi
finish

#!/usr/bin/env bash
# GRADER_REFERENCE_CACHE: gradings one after another share the reference's time, as a class's
# gradings of one GPU do; a course whose reference binary differs times its own; without it,
# every grading times the reference.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
refs="$TEST_TMP/refs"
grade() { # OUTPUT [ENV...]: pass graded once, its report in OUTPUT
  local out=$1; shift
  env -u GRADER_REFERENCE_CACHE "$@" "$GRADER" --batch --root "$course" --no-state \
    --no-sanitize --no-objcheck --ncu-share 0 --seed 3 pass --format json --output "$out" \
    2>>"$TEST_TMP/err"
}
shared() { # REPORT: the reference's time taken from the cache (True/False)
  python3 -c 'import json, sys
tasks = {x["id"]: x for x in json.load(open(sys.argv[1]))["tasks"]}
print(tasks["01-basics/pass"]["speed"]["ref_shared"])' "$1"
}

grade "$TEST_TMP/a.json" GRADER_REFERENCE_CACHE="$refs"
grade "$TEST_TMP/b.json" GRADER_REFERENCE_CACHE="$refs"
[ "$(shared "$TEST_TMP/a.json")" = False ] && [ "$(shared "$TEST_TMP/b.json")" = True ] &&
  ok "the second grading took the first one's reference time" ||
  { bad "reference shared: first $(shared "$TEST_TMP/a.json"), second $(shared "$TEST_TMP/b.json")"
    tail -5 "$TEST_TMP/err"; }

grade "$TEST_TMP/c.json"
[ "$(shared "$TEST_TMP/c.json")" = False ] && ok "without the cache the reference is timed" ||
  bad "without the cache: shared $(shared "$TEST_TMP/c.json")"

# another reference binary under the same task name: its own time, not the cache's
other="$TEST_TMP/other"
fixture_copy "$other" 01-basics
cat >>"$other/solutions/01-basics/pass.cu" <<'C'
const char *pass_reference_edition = "another course's reference";
C
course=$other grade "$TEST_TMP/d.json" GRADER_REFERENCE_CACHE="$refs"
[ "$(shared "$TEST_TMP/d.json")" = False ] && ok "a course whose reference differs times its own" ||
  bad "another reference took the cached time"
finish

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
shared_is() { # DESCRIPTION REPORT True|False: whether the reference's time came from the cache
  py_json "$1" "
t = {x['id']: x for x in d['tasks']}['01-basics/pass']
assert t['speed']['ref_shared'] is $3, (t['outcome'], t['speed'], t['reason'])
" "$2"
}

grade "$TEST_TMP/a.json" GRADER_REFERENCE_CACHE="$refs"
grade "$TEST_TMP/b.json" GRADER_REFERENCE_CACHE="$refs"
shared_is "the first grading timed the reference" "$TEST_TMP/a.json" False
shared_is "the second grading took the first one's reference time" "$TEST_TMP/b.json" True

grade "$TEST_TMP/c.json"
shared_is "without the cache the reference is timed" "$TEST_TMP/c.json" False

# another reference binary under the same task name: its own time, not the cache's
other="$TEST_TMP/other"
fixture_copy "$other" 01-basics
cat >>"$other/solutions/01-basics/pass.cu" <<'C'
const char *pass_reference_edition = "another course's reference";
C
course=$other grade "$TEST_TMP/d.json" GRADER_REFERENCE_CACHE="$refs"
shared_is "a course whose reference differs times its own" "$TEST_TMP/d.json" False
finish

#!/usr/bin/env bash
# Saved progress: finished tasks are not regraded until their exercise file changes.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
rm -f "$course"/lessons/01-basics/slow_harness.cu "$course"/exercises/01-basics/slow.cu
sed -i '/^\[task.slow\]/,/^$/d' "$course/lessons/01-basics/lesson.ini"
state="$course/.grader/state.json"
plain() { "$GRADER" --root "$course" --no-sanitize "$@" >"$TEST_TMP/plain" 2>&1 </dev/null; }
work="$course/build/grader/01-basics"

plain
py_json "first run: every task saved with its exercise hash" '
t = d["tasks"]
assert set(t) == {"01-basics/pass", "01-basics/wrong", "01-basics/forged", "01-basics/forbidden", "01-basics/sanfail"}, set(t)
assert all(len(e["hash"]) == 64 for e in t.values())
assert t["01-basics/wrong"]["result"]["outcome"] == "wrong"
' "$state"

rm -rf "$work"
plain
[ ! -e "$work/pass" ] && ok "second run: unchanged tasks are not regraded" || bad "pass was regraded"
expect_grep '^  wrong +wrong' "$TEST_TMP/plain" "second run still shows the saved outcome"

cp "$course/exercises/01-basics/pass.cu" "$course/exercises/01-basics/wrong.cu"
plain
[ -e "$work/wrong" ] && ok "a changed exercise is regraded" || bad "wrong.cu changed but not regraded"
[ ! -e "$work/pass" ] && ok "the others still are not" || bad "pass regraded after another file changed"
expect_grep '^  wrong +passed' "$TEST_TMP/plain" "the regraded task shows its new outcome"

plain --force
[ -e "$work/pass" ] && ok "--force regrades everything" || bad "--force did not regrade pass"

echo '{ not json' >"$state"
plain
expect_grep '^score: ' "$TEST_TMP/plain" "a corrupt state file is an empty state, not an error"
expect_grep 'state.json is not valid JSON: kept as .*state.json.corrupt-' "$TEST_TMP/plain" "and says where it was kept"
kept=("$course"/.grader/state.json.corrupt-*)
[ "$(cat "${kept[0]}" 2>/dev/null)" = '{ not json' ] && ok "the corrupt file is kept whole" || bad "the corrupt file was not kept"
rm -f "${kept[@]}"
py_json "and is rewritten whole" 'assert len(d["tasks"]) == 5' "$state"

rm -rf "$work"
plain --no-state
[ -e "$work/pass" ] && ok "--no-state grades without reading the state" || bad "--no-state kept results"

finish

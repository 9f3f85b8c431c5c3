#!/usr/bin/env bash
# A student's tree is the student's own, without a GPU: a student whose exercises directory is
# a symbolic link to a classmate's, and one whose single file links outside their directory,
# are rejected before anything is built, with one line naming the link and where it leads, in
# `grader class` and in `grader --batch --exercises` alike; a link that stays inside the
# exercises tree is fine.
source "$(dirname "$0")/../lib.sh"
source tests/class/fixture.sh
source tests/grader/common.sh
setup_course
CLASS=$TEST_TMP/class
mkdir -p "$CLASS/alice/exercises/01-basics" "$CLASS/carol/exercises/01-basics" \
  "$CLASS/dave/exercises/01-basics" "$CLASS/dave/exercises/mine" "$TEST_TMP/outside"
cp "$COURSE_DIR/solutions/01-basics/pass.cu" "$CLASS/alice/exercises/01-basics/pass.cu"
mkdir -p "$CLASS/bob"
ln -s ../alice/exercises "$CLASS/bob/exercises"
cp "$COURSE_DIR/solutions/01-basics/pass.cu" "$TEST_TMP/outside/pass.cu"
ln -s "$TEST_TMP/outside/pass.cu" "$CLASS/carol/exercises/01-basics/pass.cu"
cp "$COURSE_DIR/solutions/01-basics/pass.cu" "$CLASS/dave/exercises/mine/pass.cu"
ln -s ../mine/pass.cu "$CLASS/dave/exercises/01-basics/pass.cu"

bob_line="exercises is a symbolic link to $CLASS/alice/exercises: a submission must be the student's own files"
carol_line="exercises/01-basics/pass.cu is a symbolic link to $TEST_TMP/outside/pass.cu: a submission must be the student's own files"

# --batch --exercises: the same check, the same outcome
batch() { # NAME DIR
  "$GRADER" --batch pass --root "$COURSE_DIR" --exercises "$2" --no-sanitize --no-state \
    --timeout 3 --format json --output "$TEST_TMP/$1.json" >/dev/null 2>"$TEST_TMP/$1.err"
}
outcome_is() { # WHAT FILE OUTCOME REASON
  py_json "$1" "
t = d['tasks'][0]
assert t['outcome'] == '$3', (t['outcome'], t['reason'])
assert t['reason'] == '''$4''', t['reason']
" "$2"
}
batch bob "$CLASS/bob/exercises"
outcome_is "--exercises through a link to a classmate's: rejected, the link named" \
  "$TEST_TMP/bob.json" rejected "$bob_line"
batch carol "$CLASS/carol/exercises"
outcome_is "--exercises with a file linked outside: rejected, the file and its target named" \
  "$TEST_TMP/carol.json" rejected "$carol_line"
batch dave "$CLASS/dave/exercises"
py_json "--exercises with a link inside the exercises tree: graded" '
t = d["tasks"][0]
assert t["outcome"] not in ("rejected", "build_failed"), (t["outcome"], t["reason"])
' "$TEST_TMP/dave.json"

# grader class: each student's results say the same
"$GRADER" class "$CLASS" --course "$COURSE_DIR" --no-sanitize --timeout 3 --jobs 1 \
  --work "$TEST_TMP/work" >"$TEST_TMP/class.out" 2>&1
for s in bob carol; do
  line=$bob_line; [ $s = carol ] && line=$carol_line
  if grep -qF -- "$line" "$CLASS/$s/results.json" 2>/dev/null; then
    ok "class: $s's results name the link and where it leads"
  else
    bad "class: $s's results lack the line"; head -c 600 "$CLASS/$s/results.json" 2>/dev/null
    tail -n 5 "$TEST_TMP/class.out"
  fi
done
grep -qF "symbolic link" "$CLASS/alice/results.json" "$CLASS/dave/results.json" &&
  bad "class: alice or dave was refused" || ok "class: alice and dave are graded"
finish

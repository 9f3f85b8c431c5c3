#!/usr/bin/env bash
# The sandbox from the outside: where bwrap cannot make its namespaces, --batch grades with a
# one-line warning, grader class refuses unless --no-sandbox, doctor fails its sandbox check.
# Where it can, --batch grades without the warning and leaves no scratch directory behind.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
if "$GRADER" doctor --root "$course" | grep -q "^ok    sandbox"; then
  "$GRADER" --batch --root "$course" --seed 5 --no-sanitize pass --format json \
    --output "$TEST_TMP/ok.json" 2>"$TEST_TMP/ok.err"
  ! grep -q "unsandboxed" "$TEST_TMP/ok.err" && ok "sandboxed: no warning" || bad "a warning with a sandbox"
  py_json "sandboxed: the pass passes" 'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' \
    "$TEST_TMP/ok.json"
  [ ! -e "$course/build/grader/01-basics/pass/scratch" ] && [ ! -e "$course/build/exercises" ] &&
    ok "sandboxed: no scratch and no exercise binary left" || bad "scratch or exercise binary left"
  make -s -C "$course" build/exercises/01-basics/pass >/dev/null 2>&1
  "$GRADER" --batch --root "$course" --seed 5 --no-sanitize --no-build pass --format json \
    --output "$TEST_TMP/nb.json" 2>/dev/null
  py_json "sandboxed --no-build: the binary make left is graded" \
    'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' "$TEST_TMP/nb.json"
  "$GRADER" --batch --root "$course" --seed 5 --no-sanitize --no-sandbox pass --format json \
    --output "$TEST_TMP/ns.json" 2>"$TEST_TMP/ns.err"
  [ "$(grep -c "^grader: warning: --no-sandbox: student code runs unsandboxed" "$TEST_TMP/ns.err")" -eq 1 ] &&
    ok "--no-sandbox: one warning line" || bad "--no-sandbox: $(cat "$TEST_TMP/ns.err")"
  py_json "--no-sandbox: graded the same" 'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' \
    "$TEST_TMP/ns.json"
  mkdir -p "$TEST_TMP/nsclass/alice/exercises/01-basics"
  cp "$course/solutions/01-basics/pass.cu" "$TEST_TMP/nsclass/alice/exercises/01-basics/"
  "$GRADER" class "$TEST_TMP/nsclass" --course "$course" --no-sandbox --no-sanitize \
    --work "$TEST_TMP/nswork" >"$TEST_TMP/nsclass.out" 2>&1
  expect_grep "^grader class: warning: --no-sandbox: student code runs unsandboxed" \
    "$TEST_TMP/nsclass.out" "class --no-sandbox: the same meaning, the same warning"
else
  echo "note: no sandbox here; only the fallback is checked"
fi

# Code that runs before main (a constructor: only possible with --no-objcheck) and ends the
# program there has passed no GPU gate: the verifier decides it (no dump: wrong), never a
# "grader error" as for a harness of the grader's own that skipped the gate.
cat >"$course/exercises/01-basics/pass.cu" <<'C'
/* Ends the program before main, reporting success. */
#include <unistd.h>
#include "protocol.h"

__attribute__((constructor)) static void early(void) { _exit(0); }

double task_compute(long i, uint64_t seed)
{
    return protocol_expected(i, seed);
}
C
"$GRADER" --batch --root "$course" --seed 5 --no-sanitize --no-objcheck pass --format json \
  --output "$TEST_TMP/early.json" 2>/dev/null
py_json "an exit before main, unchecked: wrong, not a grader error" \
  'assert d["tasks"][0]["outcome"] == "wrong", d["tasks"][0]' "$TEST_TMP/early.json"
"$GRADER" --batch --root "$course" --seed 5 --no-sanitize pass --format json \
  --output "$TEST_TMP/early2.json" 2>/dev/null
py_json "an exit before main, checked: rejected" \
  'assert d["tasks"][0]["outcome"] == "rejected", d["tasks"][0]' "$TEST_TMP/early2.json"
cp "$ROOT/tests/grader/fixture/exercises/01-basics/pass.cu" "$course/exercises/01-basics/pass.cu"

# A bwrap that cannot make namespaces, first on PATH.
mkdir -p "$TEST_TMP/bin"
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$TEST_TMP/bin/bwrap"
chmod +x "$TEST_TMP/bin/bwrap"
export PATH="$TEST_TMP/bin:$PATH"

"$GRADER" --batch --root "$course" --seed 5 --no-sanitize pass --format json \
  --output "$TEST_TMP/fb.json" 2>"$TEST_TMP/fb.err"
[ "$(grep -c "unsandboxed" "$TEST_TMP/fb.err")" -eq 1 ] &&
  ok "no namespaces: one warning line" || bad "no warning line: $(cat "$TEST_TMP/fb.err")"
expect_grep "No permissions to create new namespace" "$TEST_TMP/fb.err" "the warning says why"
py_json "no namespaces: graded anyway" 'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' \
  "$TEST_TMP/fb.json"

mkdir -p "$TEST_TMP/class/alice"
expect_exit 1 "class refuses without a sandbox" "$GRADER" class "$TEST_TMP/class" --course "$course"
expect_grep "refusing to grade.*--no-sandbox" "$TEST_TMP/out" "the refusal names --no-sandbox"
"$GRADER" class "$TEST_TMP/class" --course "$course" --no-sandbox --no-sanitize \
  --work "$TEST_TMP/work" >"$TEST_TMP/out" 2>&1
! grep -q "refusing" "$TEST_TMP/out" && ok "--no-sandbox grades anyway" || bad "--no-sandbox refused"
"$GRADER" doctor --root "$course" >"$TEST_TMP/doc" 2>&1
expect_grep "^FAIL  sandbox .*unsandboxed" "$TEST_TMP/doc" "doctor fails its sandbox check"
finish

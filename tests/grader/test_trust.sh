#!/usr/bin/env bash
# The reference binary's hash, taken right after the grader built it, is checked before its
# verdict or its time is believed. The sandbox keeps student code from writing the verifier;
# here an exercise that appends a byte to it (the binary still runs, and would still verify)
# shows each wall alone: without the sandbox the hash check ends the grading as the grader's
# own error, never a pass; with the sandbox the write fails and the binary stays as built.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
sol="$course/build/solutions/01-basics/pass"
cat >"$course/exercises/01-basics/pass.cu" <<C
/* Right, and appends a byte to the verifier while it runs. */
#include <stdio.h>
#include "protocol.h"

double task_compute(long i, uint64_t seed)
{
    if (i == 0) {
        FILE *f = fopen("$sol", "ab");
        if (f) {
            fputc(0, f);
            fclose(f);
        }
    }
    return protocol_expected(i, seed);
}
C

# Without the sandbox (and the object check, which would reject fopen first).
"$GRADER" --batch --root "$course" --seed 3 --no-sanitize --no-sandbox --no-objcheck pass \
  --format json --output "$TEST_TMP/open.json" 2>"$TEST_TMP/open.err"
py_json "a verifier changed during the grading: the grader's own error, not a pass" '
t = d["tasks"][0]
assert t["outcome"] == "not_run", (t["outcome"], t["reason"])
assert t["reason"].startswith("grader error: ") and "not the binary the grader built" in t["reason"], t["reason"]
' "$TEST_TMP/open.json"

# The sandbox alone: the write fails, the grading passes, the verifier is the one built.
rm -rf "$course/build"
"$GRADER" --batch --root "$course" --seed 3 --no-sanitize --no-objcheck pass \
  --format json --output "$TEST_TMP/boxed.json" 2>"$TEST_TMP/boxed.err"
if grep -q "unsandboxed" "$TEST_TMP/boxed.err"; then
  echo "note: no sandbox here; only the hash check was tested"
else
  size=$(stat -c %s "$sol")
  make -s -C "$course" -B build/solutions/01-basics/pass >/dev/null 2>&1
  [ "$(stat -c %s "$sol")" = "$size" ] && ok "sandboxed: the verifier is as built" ||
    bad "sandboxed: the verifier changed size"
  py_json "sandboxed: the write failed, the grading passed" \
    'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' "$TEST_TMP/boxed.json"
fi
finish

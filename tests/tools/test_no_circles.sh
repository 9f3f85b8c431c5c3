#!/usr/bin/env bash
# No call circle between the grader's files, and no include circle between its headers: a file
# never calls back into a file that calls it (git's library under its builtins), so that a
# file cut in two is cut by layer, its shared helpers below both halves. The graph is the
# objects' own symbols (nm: what each leaves undefined, what each defines), read by
# tests/tools/circles.py; it is first shown to find a circle made for it. CPU only.
source "$(dirname "$0")/../lib.sh"

command -v python3 >/dev/null || { bad "python3 is needed"; finish; }
command -v nm >/dev/null || { bad "nm (binutils) is needed"; finish; }
CIRCLES="$ROOT/tests/tools/circles.py"

# A made-up house: a.c and b.c call each other, c.c calls a.c only; x.h and y.h include each
# other, z.h includes x.h only.
fake=$TEST_TMP/fake
mkdir -p "$fake/src/sub" "$fake/obj/sub"
printf 'int b_f(void);\nint a_f(void) { return b_f() + 1; }\n' >"$fake/src/a.c"
printf 'int a_f(void);\nint b_f(void) { return 0; }\nint b_g(void) { return a_f(); }\n' >"$fake/src/sub/b.c"
printf 'int a_f(void);\nint c_f(void) { return a_f(); }\n' >"$fake/src/c.c"
printf '#include "y.h"\n' >"$fake/src/x.h"
printf '#include "x.h"\n' >"$fake/src/sub/y.h"
printf '#include "x.h"\n' >"$fake/src/z.h"
for f in a sub/b c; do gcc -c "$fake/src/$f.c" -o "$fake/obj/$f.o" || bad "gcc -c $f.c"; done
python3 "$CIRCLES" "$fake/obj" "$fake/src" >"$TEST_TMP/fake.out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "a made-up circle fails the check (exit $rc)" || bad "a made-up circle: exit $rc, expected 1"
expect_grep '^circle of 2 files \(calls\): a\.o sub/b\.o$' "$TEST_TMP/fake.out" "the call circle is named, its files and no other"
expect_grep '^  a\.o -> sub/b\.o: b_f$' "$TEST_TMP/fake.out" "each edge of the call circle is named with its symbols"
expect_grep '^circle of 2 files \(includes\): sub/y\.h x\.h$' "$TEST_TMP/fake.out" "the include circle is named"
rm "$fake/src/sub/b.c"
python3 "$CIRCLES" "$fake/obj" "$fake/src" >"$TEST_TMP/gone.out" 2>&1
grep -q '(calls)' "$TEST_TMP/gone.out" && grep -q '^no circle (calls): 2 files' "$TEST_TMP/gone.out" &&
  ok "an object whose source is gone is not read" ||
  { bad "an object whose source is gone was read"; sed 's/^/    /' "$TEST_TMP/gone.out"; }

# The grader as built.
OBJ=$ROOT/build/obj/grader
[ -f "$OBJ/main.o" ] || { bad "$OBJ missing (make build/grader/grader)"; finish; }
if python3 "$CIRCLES" "$OBJ" "$ROOT/grader" >"$TEST_TMP/grader.out" 2>&1; then
  ok "no circle in grader/: $(paste -sd';' "$TEST_TMP/grader.out")"
else
  bad "circles in grader/ (move the helpers both sides share below them):"
  sed 's/^/    /' "$TEST_TMP/grader.out"
fi
finish

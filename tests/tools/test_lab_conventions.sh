#!/usr/bin/env bash
# The lab half's conventions, on every file of lessons/ and common/: no source file over 600
# lines; every demo opens with the one comment form (`// Lesson NN demo: ...`, the make line,
# `// version N: ... ./demo N`); no lesson keeps a host allocator of its own (the library's
# lab_xmalloc and lab_xcalloc say "out of host memory" and abort, as common/lab.h promises: a
# private one that exits with the CUDA error status makes the grader report a CUDA error).
# Each check is first shown to fail on a copy that breaks it. CPU only, no build.
source "$(dirname "$0")/../lib.sh"

# check DIR: one "bad" line per file of DIR's lessons/ and common/ that breaks a convention
check() {
  local dir=$1 f n L
  while IFS= read -r f; do
    n=$(wc -l <"$dir/$f")
    [ "$n" -le 600 ] || echo "bad $f: $n lines, more than 600"
  done < <(cd "$dir" && find lessons common -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
  for f in "$dir"/lessons/*/demo.cu; do
    L=$(basename "$(dirname "$f")")
    head -n 1 "$f" | grep -qE "^// Lesson ${L%%-*} demo( \\([a-z]+\\))?: " ||
      echo "bad lessons/$L/demo.cu: does not open with '// Lesson ${L%%-*} demo: ...'"
    awk '/^#include/ { exit } { print }' "$f" |
      grep -qF "//   make build/lessons/$L/demo && build/lessons/$L/demo" ||
      echo "bad lessons/$L/demo.cu: its opening comment has no '//   make build/lessons/$L/demo && ...' line"
    awk '/^#include/ { exit } /^\/\/ version [0-9]+: .*\.\/demo [0-9]+$/ { n++ } END { exit n == 0 }' "$f" ||
      echo "bad lessons/$L/demo.cu: its opening comment has no '// version N: ... ./demo N' line"
  done
  (cd "$dir" && grep -rnE '^static[[:space:]]+void[[:space:]]*\*[[:space:]]*[a-z_]*(alloc)[a-z_]*\(' lessons) |
    sed 's/^/bad a private allocator: /'
  # lessons/L/debug/: programs with bugs on purpose, whose notes quote their output line by line
  (cd "$dir" && grep -rn --exclude-dir=debug 'out of host memory' lessons) |
    sed 's/^/bad a private out-of-memory exit: /'
}

# a copy that breaks each convention
bad_copy=$TEST_TMP/bad
mkdir -p "$bad_copy"
cp -r lessons common "$bad_copy/"
seq 601 >"$bad_copy/common/long.h"
sed -i '1s/.*/\/* demo.cu — lesson 04 *\//' "$bad_copy/lessons/04-tiling/demo.cu"
printf 'static void *xmalloc(size_t bytes)\n{\n    void *p = malloc(bytes);\n    if (!p) { fprintf(stderr, "out of host memory\\n"); exit(LAB_EXIT_CUDA); }\n    return p;\n}\n' \
  >>"$bad_copy/lessons/07-streams/overload.cu"
check "$bad_copy" >"$TEST_TMP/bad.out"
expect_grep '^bad common/long.h: 601 lines' "$TEST_TMP/bad.out" "a file of 601 lines is found"
expect_grep "^bad lessons/04-tiling/demo.cu: does not open with" "$TEST_TMP/bad.out" "a demo's other opening comment is found"
expect_grep '^bad a private allocator: lessons/07-streams/overload.cu' "$TEST_TMP/bad.out" "a private allocator is found"
expect_grep '^bad a private out-of-memory exit: lessons/07-streams/overload.cu' "$TEST_TMP/bad.out" \
  "a private out-of-memory message is found"

check "$ROOT" >"$TEST_TMP/out"
if [ -s "$TEST_TMP/out" ]; then bad "the lab's conventions:"; sed 's/^/    /' "$TEST_TMP/out"
else ok "lessons/ and common/ keep the conventions ($(ls lessons/*/demo.cu | wc -l) demos)"; fi
finish

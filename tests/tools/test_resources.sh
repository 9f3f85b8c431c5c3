#!/usr/bin/env bash
# make resources (tools/resources.sh) in a copy of the course that is no git checkout, as a
# tarball's is: every kernel of every CUDA source still gets its row. nvcc is a stand-in that
# prints what ptxas -v prints, so no CUDA toolkit is needed.
source "$(dirname "$0")/../lib.sh"

copy="$TEST_TMP/course"
mkdir -p "$copy/tools" "$copy/common" "$copy/lessons/01-x/debug" "$copy/exercises/01-x" "$copy/solutions/01-x"
cp "$ROOT/tools/resources.sh" "$copy/tools/"
for f in common/lib.cu lessons/01-x/demo.cu lessons/01-x/debug/bug.cu exercises/01-x/t.cu solutions/01-x/t.cu; do
  echo '// a kernel' >"$copy/$f"
done
cat >"$TEST_TMP/nvcc" <<'SH'
#!/bin/sh
# ptxas -v's lines for one kernel named after the source file given
for a in "$@"; do case $a in *.cu) src=$(basename "$a" .cu) ;; esac; done
cat >&2 <<OUT
ptxas info    : Compiling entry function 'k_$src' for 'sm_90'
ptxas info    : Function properties for k_$src
    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 360 bytes cmem[0]
OUT
SH
chmod +x "$TEST_TMP/nvcc"
git -C "$copy" rev-parse 2>/dev/null && { bad "the copy is inside a git checkout: the test proves nothing"; finish; }

(cd "$copy" && bash tools/resources.sh "$TEST_TMP/nvcc" build/resources.txt) >"$TEST_TMP/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "resources.sh outside git: exit 0" || bad "resources.sh outside git: exit $rc"
for f in common/lib lessons/01-x/demo lessons/01-x/debug/bug exercises/01-x/t solutions/01-x/t; do
  expect_grep "^$f\\.cu +k_${f##*/} +32 +2048 +16 +8\$" "$copy/build/resources.txt" "a row for $f.cu's kernel"
done
finish

#!/usr/bin/env bash
# Lesson 04 on a GPU: both solutions pass every case, both shipped exercises fail cleanly, the
# verifier (a process that runs no student code) agrees, the sanitizers named in lesson.ini find
# nothing in the solutions, and the demo runs with every version checked.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
L=04-tiling

# transpose FILE ROWS COLS: the dump's f32 matrix stored transposed (a classic indexing slip).
transpose() {
  if [ -x build/tests/dump_edit ]; then build/tests/dump_edit transpose "$@"; return; fi
  python3 - "$@" <<'PY'
import struct, sys
path, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, 'rb').read()
head = data.index(b'\n') + 1
v = struct.unpack('<%df' % (rows * cols), data[head:])
t = [v[r * cols + c] for c in range(cols) for r in range(rows)]
open(path, 'wb').write(data[:head] + struct.pack('<%df' % len(t), *t))
PY
}

for T in matmul_tiled matmul_regtile; do
  sol=build/solutions/$L/$T
  ex=build/exercises/$L/$T
  expect_exit 0 "$T: the solution passes every case" $sol --seed 5 --reps 2 --warmup 1
  expect_exit 1 "$T: the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0
  expect_grep 'fail' "$TEST_TMP/out" "$T: the exercise's failures are reported"

  d=$TEST_TMP/$T.dump
  expect_exit 0 "$T: the solution dumps its outputs" $sol --seed 6 --reps 1 --warmup 0 \
      --case 37x45x53,1023x517x2049 --dump "$d"
  expect_exit 0 "$T: the dump passes --verify" $sol --reps 1 --verify "$d" --seed 6 --case 37x45x53,1023x517x2049
  transpose "$d/1023x517x2049.rep0.C.bin" 1023 517
  expect_exit 1 "$T: the dump transposed fails --verify" $sol --reps 1 --verify "$d" --seed 6 --case 1023x517x2049
  expect_exit 1 "$T: the exercise's dump fails --verify" bash -c \
      "$ex --seed 7 --case 37x45x53 --dump $TEST_TMP/$T.ex --reps 1; $sol --reps 1 --verify $TEST_TMP/$T.ex --seed 7 --case 37x45x53"

  if command -v compute-sanitizer >/dev/null 2>&1; then
    tools=$(awk -v sec="[task.$T]" '$0 == sec { on = 1; next } /^\[/ { on = 0 }
                                      on && $1 == "sanitizers" { $1 = $2 = ""; print }' lessons/$L/lesson.ini)
    for tool in $tools; do
      expect_exit 0 "$T: compute-sanitizer $tool finds nothing in the solution" \
          compute-sanitizer --tool "$tool" --error-exitcode 9 $sol --case 37x45x53 --reps 1 --warmup 0
    done
  else
    echo "note: compute-sanitizer not on PATH; the sanitizer checks were not run"
  fi
done

demo=build/lessons/$L/demo
expect_exit 0 "the demo runs (--quick)" $demo --quick --reps 2
expect_grep '^ *12 .*warptile_db' "$TEST_TMP/out" "the demo's table has the warp-tiled rung"
expect_grep '^ *14 .*warptile_k16' "$TEST_TMP/out" "the demo's table reaches the last setting of the top rung"
expect_grep '[[:space:]]ok$' "$TEST_TMP/out" "the demo checked its products"
# Every version's product is checked by the demo itself (last column). The TF32 table is
# exempt: its tensor-core product may fall outside FP32's tolerance, and says so.
grep -E '[[:space:]]FAIL[[:space:]]*$' "$TEST_TMP/out" | grep -v '^TF32' >"$TEST_TMP/fails"
if [ -s "$TEST_TMP/fails" ]; then
  bad "a demo version computed a wrong product"; sed 's/^/    /' "$TEST_TMP/fails"
else
  ok "every demo version's product checks out"
fi
expect_grep '^TF32 tensor op' "$TEST_TMP/out" "the demo shows TF32 apart from the ladder"
expect_exit 2 "the demo refuses a version it does not have" $demo 99
finish

# The verifier's full check of large products on the GPU (common/compare_gpu.cu), for every task
# whose large outputs the CPU can only sample (matmul_naive, matmul_tiled, matmul_regtile, ata):
# the GPU's check agrees with the CPU's element by element (tests/gpu/full_check.cu); the
# solution's own dump of the speed case passes with every element checked and none wrong; a
# dump with k corrupted elements in its last tile fails with exactly k wrong, the first of
# them named; and with no GPU visible the verifier falls back to the sampled check, exit codes
# as before, and its report says so. Prints how long each verification took.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
[ -x build/tests/dump_edit ] || { bad "build/tests/dump_edit missing (make test)"; finish; }

expect_exit 0 "the GPU's full check agrees with the CPU's" build/tests/gpu/full_check
grep -E '^(ok|FAIL)' "$TEST_TMP/out" | sed 's/^/    /'

# case_value TAP KEY: the value of KEY in the report's first case block
case_value() { sed -n "s/^  $2: //p" "$1" | head -n 1 | tr -d '"'; }

# verify LABEL EXIT BIN DIR SEED CASES [env...]: one verification, timed, its report in $TEST_TMP/v.tap
verify() {
  local label=$1 want=$2 bin=$3 dir=$4 seed=$5 cases=$6; shift 6
  local t0 t1
  t0=$(date +%s.%N)
  expect_exit "$want" "$label" env "$@" "$bin" --reps 1 --verify "$dir" --seed "$seed" --case "$cases" \
    --report "$TEST_TMP/v.tap"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "    (%.2f s)\n", b - a}'
}

# check_task NAME BIN SPEED ROWS COLS OTHER: the whole story for one task
check_task() {
  local name=$1 bin=$2 speed=$3 rows=$4 cols=$5 other=$6 d=$TEST_TMP/$1
  [ -x "$bin" ] || { bad "$bin missing (make)"; return; }
  expect_exit 0 "$name: the solution's dump" "$bin" --seed 21 --case "$speed${other:+,$other}" --reps 1 --dump "$d"
  verify "$name: the solution's dump passes --verify" 0 "$bin" "$d" 21 "$speed${other:+,$other}"
  expect_grep '^  check: "every element, on the GPU' "$TEST_TMP/v.tap" "$name: checked on the GPU"
  if grep -q '^  bad: ' "$TEST_TMP/v.tap" && ! grep '^  bad: ' "$TEST_TMP/v.tap" | grep -qv ' 0$'; then
    ok "$name: no element wrong in any case"
  else bad "$name: elements wrong in the solution's dump"; grep '^  bad: ' "$TEST_TMP/v.tap"; fi
  # the speed case's block: every element checked
  awk -v c="$speed" '$0 ~ "^(not )?ok [0-9]+ - " c "$" {on = 1} on && /^  checked:/ {print $2; exit}' \
    "$TEST_TMP/v.tap" >"$TEST_TMP/checked"
  [ "$(cat "$TEST_TMP/checked")" = $((rows * cols)) ] && ok "$name: all $((rows * cols)) elements checked" ||
    bad "$name: checked $(cat "$TEST_TMP/checked"), expected $((rows * cols))"

  # no GPU visible: the sampled check on the CPU, same exit code, and the report says so
  verify "$name: without a GPU the sampled check passes it" 0 "$bin" "$d" 21 "$speed" CUDA_VISIBLE_DEVICES=
  expect_grep '^  check: "sampled, on the CPU \(no usable GPU' "$TEST_TMP/v.tap" "$name: the fallback is said"

  # five elements of the last tile's last row wrong: exactly five found, the first named
  local f=$d/$speed.rep0.C.bin last=$(((rows - 1) * cols)) k
  for k in 10 9 8 7 6; do
    build/tests/dump_edit set "$f" $((last + cols - k)) 1000.5
  done
  verify "$name: five wrong elements fail --verify" 1 "$bin" "$d" 21 "$speed"
  [ "$(case_value "$TEST_TMP/v.tap" bad)" = 5 ] && ok "$name: exactly 5 wrong" ||
    bad "$name: $(case_value "$TEST_TMP/v.tap" bad) wrong, expected 5"
  expect_grep "^  first_mismatch: \"\\[$((last + cols - 10))\\] \\(row $((rows - 1)), col $((cols - 10))\\) expected .* got 1000.5\"" \
    "$TEST_TMP/v.tap" "$name: the first of them named"
  verify "$name: without a GPU they fail too (the last row is always sampled)" 1 "$bin" "$d" 21 "$speed" \
    CUDA_VISIBLE_DEVICES=
  rm -rf "$d"
}

check_task matmul_naive build/solutions/03-naive-matmul/matmul_naive 4096x4096x4096 4096 4096 ""
check_task matmul_tiled build/solutions/04-tiling/matmul_tiled 4096x4096x4096 4096 4096 ""
check_task matmul_regtile build/solutions/04-tiling/matmul_regtile 4096x4096x4096 4096 4096 2048x2048x2048
check_task ata build/solutions/09-ata-cublas/ata 4096x4096 4096 4096 300x700,2049x515
finish

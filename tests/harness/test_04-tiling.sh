#!/usr/bin/env bash
# Lesson 04 harnesses without a GPU: the CLI, the CPU reference as a dump, and the verifier
# catching a changed element and a transposed result, for both tasks; lesson.ini names real cases.
source "$(dirname "$0")/../lib.sh"
L=04-tiling
INI=lessons/$L/lesson.ini

# corrupt SRC DST MODE ROWS COLS: copy a dump, changing its f32 payload (after the header
# line): MODE one changes one element, MODE transpose stores the matrix transposed. Uses the
# project's dump_edit when it is built, python3 otherwise.
corrupt() {
  local src=$1 dst=$2 mode=$3 rows=$4 cols=$5
  if [ -x build/tests/dump_edit ]; then
    cp "$src" "$dst" || return 1
    if [ "$mode" = one ]; then
      build/tests/dump_edit set "$dst" $(( (rows / 2) * cols + cols / 3 )) 7.5
    else
      build/tests/dump_edit transpose "$dst" "$rows" "$cols"
    fi
    return
  fi
  python3 - "$@" <<'PY'
import struct, sys
src, dst, mode, rows, cols = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
data = open(src, 'rb').read()
head = data.index(b'\n') + 1
vals = list(struct.unpack('<%df' % (rows * cols), data[head:]))
if mode == 'one':
    vals[(rows // 2) * cols + cols // 3] = 7.5
else:
    vals = [vals[r * cols + c] for c in range(cols) for r in range(rows)]
open(dst, 'wb').write(data[:head] + struct.pack('<%df' % len(vals), *vals))
PY
}

for T in matmul_tiled matmul_regtile; do
  SOL=build/solutions/$L/$T
  EX=build/exercises/$L/$T
  for b in "$SOL" "$EX"; do
    [ -x "$b" ] && ok "$b built" || { bad "$b missing (make $b)"; continue; }
  done
  [ -x "$SOL" ] || continue

  "$SOL" --list >"$TEST_TMP/list" 2>&1
  expect_grep '^37x45x53' "$TEST_TMP/list" "$T --list names the sanitizer case"
  expect_grep '^4096x4096x4096.*speed' "$TEST_TMP/list" "$T --list flags the speed case"
  expect_grep '^1x1x1' "$TEST_TMP/list" "$T --list has the 1x1x1 case"

  # lesson.ini's speed_case / sanitize_case, where it names one, must be a case of this
  # harness; where it names none, the grader takes the case --list flags speed / small
  for pair in speed_case:speed sanitize_case:small; do
    key=${pair%%:*} flag=${pair#*:}
    want=$(awk -v sec="[task.$T]" -v key="$key" '
      $0 == sec { on = 1; next } /^\[/ { on = 0 }
      on && $1 == key { print $3 }' "$INI")
    if [ -z "$want" ]; then
      expect_grep "[[:space:]]([a-z]+,)?$flag(,[a-z]+)?\$" "$TEST_TMP/list" \
        "$T: no $key in lesson.ini, --list flags a $flag case"
    elif grep -q "^$want[[:space:]]" "$TEST_TMP/list"; then
      ok "$T: lesson.ini $key '$want' is a case"
    else
      bad "$T: lesson.ini $key '$want' is not in --list"
    fi
  done

  expect_exit 2 "$T: unknown flag is a usage error" "$SOL" --no-such-flag
  expect_exit 2 "$T: unknown case is a usage error" "$SOL" --case 5x5x5
  expect_exit 2 "$T: bad seed is a usage error" "$SOL" --seed banana
  expect_exit 2 "$T: --verify of a missing directory is a usage error" "$SOL" --verify "$TEST_TMP/none"
  "$SOL" --case 5x5x5 >"$TEST_TMP/err" 2>&1
  [ "$(wc -l <"$TEST_TMP/err")" -eq 1 ] && ok "$T: usage error is one line" \
    || bad "$T: usage error is $(wc -l <"$TEST_TMP/err") lines"

  REF=$TEST_TMP/$T.ref
  expect_exit 0 "$T: --dump-reference of small cases" "$SOL" --dump-reference "$REF" \
    --case 37x45x53,1x1x1
  expect_exit 0 "$T: the reference dump verifies" "$SOL" --verify "$REF" --case 37x45x53,1x1x1
  expect_exit 0 "$T: the exercise build verifies it too (same checking code)" \
    "$EX" --verify "$REF" --case 37x45x53
  expect_exit 1 "$T: the dump does not verify under another seed" \
    "$SOL" --verify "$REF" --case 37x45x53 --seed 2

  for mode in one transpose; do
    BADDIR=$TEST_TMP/$T.$mode
    mkdir -p "$BADDIR"
    cp "$REF"/* "$BADDIR"/
    if ! corrupt "$REF/37x45x53.rep0.C.bin" "$BADDIR/37x45x53.rep0.C.bin" "$mode" 37 45; then
      bad "$T: could not write the $mode-corrupted dump"; continue
    fi
    cmp -s "$REF/37x45x53.rep0.C.bin" "$BADDIR/37x45x53.rep0.C.bin" && bad "$T: $mode corruption changed nothing"
    expect_exit 1 "$T: a dump with $mode changed fails --verify" "$SOL" --verify "$BADDIR" --case 37x45x53
  done
  "$SOL" --verify "$TEST_TMP/$T.one" --case 37x45x53 >"$TEST_TMP/out" 2>&1
  expect_grep 'fail' "$TEST_TMP/out" "$T: the failing case is reported"
done

# The demo's command line needs no GPU: --list comes from the version registry, and a version
# it does not have is a usage error before any device is opened.
DEMO=build/lessons/$L/demo
if [ -x "$DEMO" ]; then
  expect_exit 0 "demo --list" "$DEMO" --list
  [ "$(grep -cE '^[0-9]+'$'\t' "$TEST_TMP/out")" -eq 15 ] && ok "demo --list shows versions 0..14" \
    || bad "demo --list: $(grep -cE '^[0-9]+'$'\t' "$TEST_TMP/out") versions, expected 15"
  expect_grep '^12'$'\t''warptile_db' "$TEST_TMP/out" "demo --list ends at the warp-tiled version"
  expect_grep '^7'$'\t''matmul_tiled'$'\t' "$TEST_TMP/out" "demo --list has the matmul_tiled solution's rung"
  expect_grep '^11'$'\t''matmul_regtile'$'\t' "$TEST_TMP/out" "demo --list has the matmul_regtile solution's rung"
  expect_exit 2 "demo with an unknown version" "$DEMO" 15
  expect_grep 'no version 15' "$TEST_TMP/out" "the unknown version is named"
  expect_exit 2 "demo with an unknown flag" "$DEMO" --bogus
else
  bad "$DEMO missing (make $DEMO)"
fi

finish

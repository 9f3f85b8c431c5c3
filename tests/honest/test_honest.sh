#!/usr/bin/env bash
# The honest corpus: tests/honest/L/T/NAME.cu are complete, correct exercise files written the
# way students write (iostream and std::string on the host, STL containers, cooperative groups,
# libcu++, inline PTX, CUB and Thrust where a task allows them, ...). Each is graded by the real
# grader against the real course; none may be `rejected` or `build_failed`. Without a GPU the
# outcome is `skipped`, which comes after the object check: that part runs everywhere. With a
# GPU it must be the entry's outcome in tests/honest/outcomes (default `passed`; `too_slow` is
# accepted too where a debug helper costs time).
# Entries of different tasks share one copy of exercises/ and one grader call; a second entry
# of a task goes to the next copy. The calls run at once: the grader's own lock (gpulock.h)
# gives each timed run its turn, as it does a class's gradings.
# test-group: gpu-graded
source "$(dirname "$0")/../lib.sh"
GRADER=$ROOT/build/grader/grader
[ -x "$GRADER" ] || { echo "FAIL: $GRADER is not built (make build/grader/grader)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read the reports"; exit 1; }
[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] ||
  { echo "SKIP: no nvcc: the course cannot be built"; exit 77; }
have_gpu=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && have_gpu=1

# expected OUTCOME of an entry L/T/NAME on a GPU
expected() {
  local e
  e=$(awk -v k="$1" '$1 == k { print $2 }' "$ROOT/tests/honest/outcomes" 2>/dev/null)
  echo "${e:-passed}"
}

# groups: group N holds the N-th entry of every task
for f in $(cd "$ROOT/tests/honest" && find . -name '*.cu' | sed 's|^\./||' | sort); do
  group_by_task "${f%/*}" "$f"
done
[ ${#groups[@]} -gt 0 ] || { bad "no entries in tests/honest"; finish; }

total=0
for g in "${!groups[@]}"; do
  copy=$TEST_TMP/copy$g
  cp -r "$ROOT/exercises" "$copy"
  tasks=()
  for f in ${groups[g]}; do
    cp "$ROOT/tests/honest/$f" "$copy/${f%/*}.cu"
    tasks+=("${f%/*}")
  done
  "$GRADER" --batch "${tasks[@]}" --root "$ROOT" --exercises "$copy" --exbuild "$TEST_TMP/exbuild$g" \
    --no-state --format json --output "$TEST_TMP/report$g.json" 2>"$TEST_TMP/stderr$g" >/dev/null &
done
wait
for g in "${!groups[@]}"; do
  for f in ${groups[g]}; do
    total=$((total + 1))
    entry=${f%.cu}
    read -r got reason < <(python3 -c 'import json,sys
for t in json.load(open(sys.argv[1]))["tasks"]:
    if t.get("id", t.get("task")) == sys.argv[2]:
        print(t["outcome"], " ".join(t.get("reason", "").split())); break
else:
    print("none (not in the report)")' "$TEST_TMP/report$g.json" "${f%/*}" 2>/dev/null || echo "none")
    if [ "$have_gpu" = 1 ]; then
      want=$(expected "$entry")
      case "$got" in
        "$want"|too_slow) ok "$entry: $got" ;;
        *) bad "$entry: $got, expected $want: $reason" ;;
      esac
    else
      case "$got" in
        skipped) ok "$entry: passes the object check (skipped: no GPU)" ;;
        *) bad "$entry: $got: $reason"; tail -3 "$TEST_TMP/stderr$g" ;;
      esac
    fi
  done
done
[ "$total" -ge 20 ] && ok "$total honest entries" || bad "only $total honest entries (20 at least)"
finish

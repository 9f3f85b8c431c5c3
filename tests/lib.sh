# Sourced by test scripts: helpers shared by every test group.
# A script runs from the repository root; it exits 0 on pass, 77 on skip, 1 on failure.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
TEST_FAILS=0
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/labtest.XXXXXX")
trap '[ -n "${KEEP_TEST_TMP:-}" ] && echo "kept $TEST_TMP" || rm -rf "$TEST_TMP"' EXIT

# SKIP with one clear line unless a CUDA device can run code here.
require_gpu() {
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no CUDA device (nvidia-smi finds no GPU)"; exit 77
  fi
}

# use_work_queues LESSON: the lesson's programs open the hardware work queues its lesson.ini
# asks for (work_queues), as the grader's do; tests/run.sh gives a GPU group's programs one.
use_work_queues() {
  local q
  q=$(sed -n 's/^work_queues[[:space:]]*=[[:space:]]*\([0-9][0-9]*\)[[:space:]]*$/\1/p' \
        "lessons/$1/lesson.ini" | head -n 1)
  [ -n "$q" ] && export CUDA_DEVICE_MAX_CONNECTIONS=$q
  return 0
}

# check_finding REPORT TASK KEYS WHAT: in a grader's JSON report, the task's outcome is correct
# (passed or too slow) and its profile's finding one of KEYS (a|b); printed with its steps.
check_finding() {
  python3 - "$@" <<'PY'
import json, sys
path, task, keys, what = sys.argv[1:5]
d = json.load(open(path))
t = next((t for t in d["tasks"] if t["id"] == task), None)
if t is None:
    print(f"FAIL - {what}: {task} not in the report"); sys.exit(1)
p = t.get("profile")
key = p["finding"]["key"] if p else None
print(f"#   {what}: {t['outcome']}, speed {t.get('speed', {}).get('ratio')}, finding {key}: "
      f"{p['finding']['text'] if p else '(no profile)'}")
g = t.get("gpu", {})
print("#     steps (s): " + ", ".join(f"{k} {v:.1f}" for k, v in t.get("steps", {}).items() if v) +
      f"; GPU timed {g.get('timed_s', 0):.1f}, shared {g.get('shared_s', 0):.1f}, "
      f"waited {g.get('wait_s', 0):.1f}")
if t["outcome"] not in ("passed", "too_slow"):
    print(f"FAIL - {what}: outcome {t['outcome']}: {t['reason']}"); sys.exit(1)
if key not in keys.split("|"):
    print(f"FAIL - {what}: finding {key}, expected {keys}"); sys.exit(1)
print(f"ok   - {what}: {key}")
PY
}

# expect_program BIN WHAT: a test program of the build runs and exits 0 (its output shown when
# it does not).
expect_program() {
  [ -x "$1" ] || { bad "$1 missing (make $1)"; return; }
  expect_exit 0 "$2" "$1"
}

# stand_in_install COURSE: the stand-in task harness (tests/stand-in/) and the protocol header
# into a copied test course's common/, where its Makefile compiles them. One source for every
# test course: a course's build sees only its own tree (the grader's sandbox).
stand_in_install() {
  mkdir -p "$1/common" &&
    cp "$ROOT/tests/stand-in/protocol.c" "$ROOT/tests/stand-in/protocol.h" \
       "$ROOT/common/lab_protocol.h" "$ROOT/common/lab_witness.h" "$ROOT/common/lab_draw.h" \
       "$1/common/"
}

# group_by_task TASK ITEM: ITEM into groups[N], N the count of TASK's items before it, so that
# each group holds at most one item of a task (one copy of exercises/, one grader call each).
declare -A group_seen=()
groups=()
group_by_task() {
  local n=${group_seen[$1]:-0}
  group_seen[$1]=$((n + 1))
  groups[n]="${groups[n]:-} $2"
}

ok()   { echo "ok   - $*"; }
bad()  { echo "FAIL - $*"; TEST_FAILS=$((TEST_FAILS + 1)); }

# expect_exit CODE DESCRIPTION command...   runs the command, output to the log
# A step of a second or more says how long it took, so that a group's log shows where its time goes.
expect_exit() {
  local want=$1 what=$2; shift 2
  local t0=${EPOCHREALTIME//[.,]/}
  "$@" >"$TEST_TMP/out" 2>&1; local rc=$?
  local ds=$(( (${EPOCHREALTIME//[.,]/} - t0) / 100000 )) took=
  [ $ds -ge 10 ] && took=", $((ds / 10)).$((ds % 10)) s"
  if [ "$rc" -eq "$want" ]; then ok "$what (exit $rc$took)"
  else bad "$what: exit $rc, expected $want$took"; sed 's/^/    /' "$TEST_TMP/out" | tail -n 15; fi
}

# expect_grep PATTERN FILE DESCRIPTION
expect_grep() {
  if grep -qE -- "$1" "$2"; then ok "$3"; else bad "$3: /$1/ not in $2"; sed 's/^/    /' "$2" | tail -n 10; fi
}

finish() { [ "$TEST_FAILS" -eq 0 ] && { echo "all checks passed"; exit 0; }; echo "$TEST_FAILS check(s) failed"; exit 1; }

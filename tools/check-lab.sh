#!/usr/bin/env bash
# make check-lab: the course is consistent. For every task L/T:
#   - exercises/L/T.cu has at least one "// TODO:" and solutions/L/T.cu has none;
#   - both compiled (make did that before this script runs);
#   - on a GPU: the shipped exercise fails its check (exit 1: wrong, not crashed) and the
#     solution passes every case (exit 0). Without a GPU that half prints one SKIP line.
#   tools/check-lab.sh L/T...
set -u
case ${1:-} in -h|--help) echo 'usage: tools/check-lab.sh L/T...   exercises have a TODO and fail, solutions pass (exit 77: the GPU half skipped)'; exit 0 ;; esac
cd "$(dirname "$0")/.."
bad=0 gpu_skipped=0
say_bad() { echo "FAIL $*"; bad=$((bad + 1)); }
for t in "$@"; do
  grep -q '// TODO:' "exercises/$t.cu" || say_bad "$t: exercises/$t.cu has no // TODO: line"
  grep -q 'TODO' "solutions/$t.cu" && say_bad "$t: solutions/$t.cu still has a TODO"
  for b in "build/exercises/$t" "build/solutions/$t"; do
    [ -x "$b" ] || say_bad "$t: $b was not built"
  done
done
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  for t in "$@"; do
    "build/exercises/$t" --reps 1 --warmup 0 >/dev/null 2>&1; rc=$?
    [ $rc -eq 1 ] || say_bad "$t: the shipped exercise exits $rc, expected 1 (fails its check cleanly)"
    "build/solutions/$t" --reps 1 --warmup 0 >/dev/null 2>&1; rc=$?
    [ $rc -eq 0 ] || say_bad "$t: the solution exits $rc, expected 0 (every case passes)"
  done
else
  echo "SKIP: GPU half of check-lab (no CUDA device): exercises failing and solutions passing not run"
  gpu_skipped=1
fi
if [ $bad -gt 0 ]; then
  echo "check-lab: $bad problem(s)"
elif [ $gpu_skipped -eq 1 ]; then
  echo "check-lab: $# task(s): every exercise has its TODO and every program is built; whether they fail and pass was not run (no GPU)"
else
  echo "check-lab: $# task(s) consistent"
fi
[ $bad -eq 0 ] || exit 1
[ $gpu_skipped -eq 0 ] || exit 77
exit 0

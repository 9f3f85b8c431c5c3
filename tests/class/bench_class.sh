#!/usr/bin/env bash
# Students graded per minute on this machine's GPU for the real course: a class of N students,
# each a copy of the reference solutions, graded by `grader class` for at most LIMIT seconds
# (interrupted runs lose nothing; the rate counts the students finished).
#   tests/class/bench_class.sh OUTDIR [N=20] [LIMIT=170] [grader class options...]
set -u
cd "$(dirname "$0")/../.."
out=$1 n=${2:-20} limit=${3:-170}
shift $(( $# < 3 ? $# : 3 ))
work=$(mktemp -d "${TMPDIR:-/tmp}/classbench.XXXXXX")
course=$work/course class=$work/class
mkdir -p "$course" "$class" "$out"
cp -r Makefile common tools lessons solutions exercises "$course"/
# lessons whose reference does not build are left out, and said so
tasks=()
for h in "$course"/lessons/*/*_harness.cu; do
  t=${h#"$course"/lessons/}; tasks+=("${t%_harness.cu}")
done
start=$SECONDS
make -C "$course" -k -j"$(nproc)" $(printf 'build/solutions/%s ' "${tasks[@]}") >"$out/course-build.log" 2>&1
echo "course build: $((SECONDS - start)) s" | tee "$out/summary.txt"
for t in "${tasks[@]}"; do
  if [ ! -x "$course/build/solutions/$t" ]; then
    echo "left out: lesson ${t%/*} (its reference $t does not build)" | tee -a "$out/summary.txt"
    rm -rf "$course/lessons/${t%/*}"
  fi
done
for i in $(seq -w 1 "$n"); do
  mkdir -p "$class/s$i" && cp -r "$course/solutions" "$class/s$i/exercises"
done
start=$SECONDS
timeout -k 30 -s INT "$limit" build/grader/grader class "$class" --course "$course" "$@" \
  >"$out/class.log" 2>&1
echo "grader class $* : exit $?, $((SECONDS - start)) s" | tee -a "$out/summary.txt"
grep -E "^class |graded .* students per minute|^\[" "$out/class.log" | tee -a "$out/summary.txt"
cp "$class/gradebook.csv" "$class/junit.xml" "$out/" 2>/dev/null
cp "$class/s01/results.json" "$out/s01-results.json" 2>/dev/null
rm -rf "$work"

#!/usr/bin/env bash
# tools/new-task.sh scaffolds a lesson with one task into a copy of the course, and the scaffold
# is a course's lesson as it is: it builds (nvcc compiles; nothing runs on a GPU), check-lab's CPU
# half passes, its own harness test passes, the grader accepts its object (skipped without a
# GPU), its notes read as notes, the README's course table names it, and its demo's versions
# agree. Bad names and names taken are one error line and exit 2, and write nothing.
source "$(dirname "$0")/../lib.sh"
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$nvcc" ] || { echo "SKIP: no nvcc ($nvcc): the scaffold cannot be built"; exit 77; }
GRADER=$ROOT/build/grader/grader
[ -x "$GRADER" ] || { bad "$GRADER missing (make build/grader/grader)"; finish; }

course=$TEST_TMP/course
mkdir -p "$course"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$ROOT" ls-files -co --exclude-standard -z | (cd "$ROOT" && xargs -0 cp --parents -t "$course")
else
  tar -C "$ROOT" --exclude=./build -cf - . | tar -C "$course" -xf -
fi
# the next free lesson number, and a task name no lesson has
last=$(cd "$course/lessons" && ls -d [0-9][0-9]-* | tail -n 1)
L=$(printf '%02d' $((10#${last%%-*} + 1)))-vector-scale T=scaffold_vscale
new() { "$course/tools/new-task.sh" --root "$course" "$@"; }

# bad input: one line on stderr, exit 2, nothing written
before=$(cd "$course" && find . | sort | md5sum)
for args in "${L/vector/Vector} $T" "$L Vscale" "1-x $T" "$L" "01-again $T" "$L reduce_sum" \
            "--frobnicate $L $T"; do
  # shellcheck disable=SC2086
  new $args >"$TEST_TMP/out" 2>"$TEST_TMP/err"; rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/err")" -eq 1 ] && [ ! -s "$TEST_TMP/out" ]; then
    ok "new-task $args: exit 2, $(cat "$TEST_TMP/err")"
  else
    bad "new-task $args: exit $rc, $(wc -l <"$TEST_TMP/err") lines on stderr"; cat "$TEST_TMP/err"
  fi
done
[ "$(cd "$course" && find . | sort | md5sum)" = "$before" ] && ok "bad input wrote nothing" || bad "bad input wrote files"

expect_exit 0 "new-task $L $T" new --title "Scaling a vector" $L $T
for f in lessons/$L/lesson.ini lessons/$L/$T.h lessons/$L/${T}_harness.cu lessons/$L/demo.cu \
         lessons/$L/README.md lessons/$L/profile.ini lessons/$L/plot.gp exercises/$L/$T.cu solutions/$L/$T.cu \
         solutions/$L/ANSWERS.md tests/harness/test_$L.sh tests/gpu/test_$L.sh; do
  [ -s "$course/$f" ] || bad "$f was not written"
done
if grep -rn '@[A-Z_]*@' "$course/lessons/$L" "$course/exercises/$L" "$course/solutions/$L" \
     "$course/tests/harness/test_$L.sh" "$course/tests/gpu/test_$L.sh" >"$TEST_TMP/left"; then
  bad "template words left:"; head -5 "$TEST_TMP/left"
else ok "every template word replaced"; fi
expect_grep "^\| \[$L\]\(lessons/$L/README.md\) \| Scaling a vector \| \`$T\` \|$" "$course/README.md" \
  "README.md's course table has the lesson"
expect_exit 2 "the same lesson again is refused" new $L other_task

cd "$course" || exit 1
expect_exit 0 "the scaffold builds (demo, solution, exercise)" \
  make -j2 build/lessons/$L/demo build/solutions/$L/$T build/exercises/$L/$T
cp "$TEST_TMP/out" "$TEST_TMP/build.log"
grep -i 'warning' "$TEST_TMP/build.log" && bad "the build warns" || ok "the build is clean of warnings"
# without a GPU its GPU half skips (77); on one, the exercise must fail and the solution pass (0)
want_rc=77; nvidia-smi -L >/dev/null 2>&1 && want_rc=0
tools/check-lab.sh $L/$T >"$TEST_TMP/out" 2>&1; rc=$?
[ $rc -eq $want_rc ] && ok "check-lab on the scaffold (exit $rc)" \
  || { bad "check-lab on the scaffold: exit $rc, expected $want_rc"; cat "$TEST_TMP/out"; }
expect_exit 0 "the scaffold's harness test" bash tests/harness/test_$L.sh

# the demo's versions: --list, the opening comment and the _vN functions agree
build/lessons/$L/demo --list >"$TEST_TMP/list" 2>&1
ids=$(cut -f1 "$TEST_TMP/list" | tr '\n' ' ')
comment=$(awk '/^#include/ { exit } match($0, /version [0-9]+:/) { printf "%s ", substr($0, RSTART + 8, RLENGTH - 9) }' lessons/$L/demo.cu)
fns=$(grep -ohE '_v[0-9]+\(void \*arg\)' lessons/$L/demo.cu | sed -E 's/_v([0-9]+).*/\1/' | tr '\n' ' ')
[ -n "$ids" ] && [ "$ids" = "$comment" ] && [ "$ids" = "$fns" ] && ok "the demo's versions agree: $ids" \
  || bad "the demo's versions: --list '$ids', comment '$comment', functions '$fns'"

# the notes read as notes; the plot script draws the demo's table, and nothing without it
if command -v gnuplot >/dev/null; then
  mkdir -p "$TEST_TMP/csv" "$TEST_TMP/fig"
  printf 'n,version,name,time,GB/s,%% of copy\n67108864,1,solution,0.1 ms,1,-\n' >"$TEST_TMP/csv/${L}_versions.csv"
  gnuplot -e "csvdir='$TEST_TMP/csv'; outdir='$TEST_TMP/fig'" lessons/$L/plot.gp >"$TEST_TMP/out" 2>&1 &&
    grep -q '<path' "$TEST_TMP/fig/${L}_versions.svg" 2>/dev/null && ok "plot.gp draws the versions table" ||
    { bad "plot.gp on a versions table"; cat "$TEST_TMP/out"; }
  gnuplot -e "csvdir='$TEST_TMP/none'; outdir='$TEST_TMP/fig2'" lessons/$L/plot.gp >"$TEST_TMP/out" 2>&1 &&
    [ ! -s "$TEST_TMP/out" ] && ok "plot.gp without the table draws nothing, quietly" ||
    { bad "plot.gp without a table"; cat "$TEST_TMP/out"; }
fi
# the notes read as notes
perl tests/notes/forbidden.pl lessons/$L/README.md >"$TEST_TMP/out" 2>&1 && ok "the notes use no forbidden word" \
  || { bad "the notes use forbidden words"; cat "$TEST_TMP/out"; }
perl tests/notes/notes_words.pl history lessons/$L/README.md >"$TEST_TMP/out" 2>&1 \
  && ok "the notes speak of no build history" || { bad "the notes' words"; cat "$TEST_TMP/out"; }
expect_exit 0 "the notes' test on the course with the new lesson (make notes, plot scripts)" bash tests/notes/test_notes.sh
python3 tests/tools/readme_lists.py "$course" >"$TEST_TMP/out" 2>&1 && ok "the READMEs' lists hold with the new lesson" \
  || { bad "the READMEs' lists"; grep -v '^ok' "$TEST_TMP/out"; }

# the grader takes the scaffold's task: its object passes the check; without a GPU it is
# skipped, on one the shipped exercise is wrong
"$GRADER" --batch --root "$course" --no-state --no-sanitize --format json --output "$TEST_TMP/r.json" \
  $L/$T >"$TEST_TMP/out" 2>&1; rc=$?
want=skipped; nvidia-smi -L >/dev/null 2>&1 && want=wrong
outcome=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"][0]["outcome"])' "$TEST_TMP/r.json" 2>/dev/null)
[ "$outcome" = "$want" ] && ok "the grader grades the scaffold's exercise: $outcome (exit $rc)" \
  || { bad "the grader on the scaffold: '$outcome' (exit $rc), expected $want"; tail -5 "$TEST_TMP/out"; }
finish

# Sourced by the class tests: builds the fixture class from the fixture course.
#   COURSE   the course graded (default tests/grader/fixture); copied, so its build stays out
#            of the source tree
#   GRADER   the grader binary (default build/grader/grader)
# make_class DIR   writes a dozen students into DIR (see the table below) and sets TASKS to the
#                  course's task ids, in course order.
COURSE_SRC=${COURSE:-tests/grader/fixture}
GRADER=${GRADER:-build/grader/grader}

# Students and what each task of theirs must grade as:
#   right, right2     the reference solutions                    passed
#   wrong             the shipped exercises                      as grader --batch grades them
#   forger            shipped exercises + forged "ok" lines      as grader --batch grades them
#   crash             solutions + SIGSEGV in task_compute        crashed
#   hang              solutions + spins forever in task_compute  timed_out
#   broken            solutions + a compile error                build_failed
#   partial           the first task's solution only             passed, then not_submitted
#   mixed             task 1 crashes, the rest are solutions     crashed, then passed
#   empty             no exercises/ at all                       not_submitted
#   blank             an empty exercises/                        not_submitted
#   o'brien, jr       the solutions (a name to quote)            passed
#   probe             solutions + prints CUDA_VISIBLE_DEVICES    passed
# (a reference solution of a task that skips, 02-faults/skip, grades skipped where "passed" is
# written: its reference skips too, so the grader's probe believes it)

setup_course() { # copies the course and builds nothing: grader class builds it once
  [ -x "$GRADER" ] || { echo "FAIL - $GRADER is not built"; exit 1; }
  [ -d "$COURSE_SRC/lessons" ] || { echo "SKIP: no fixture course at $COURSE_SRC"; exit 77; }
  COURSE_DIR=$TEST_TMP/course
  mkdir -p "$COURSE_DIR"
  (cd "$COURSE_SRC" && tar --exclude=./build --exclude=./.grader -cf - .) | (cd "$COURSE_DIR" && tar -xf -)
  # a stand-in course (no lab library in its common/) gets the stand-in harness
  [ -f "$COURSE_DIR/common/lab.h" ] || stand_in_install "$COURSE_DIR"
  # every task with both a solution and an exercise file
  TASKS=()
  for f in "$COURSE_DIR"/solutions/*/*.cu; do
    [ -f "$f" ] || continue
    rel=${f#"$COURSE_DIR"/solutions/}
    grep -q "^\[task\.$(basename "$rel" .cu)\]" "$COURSE_DIR/lessons/$(dirname "$rel")/lesson.ini" \
      2>/dev/null && TASKS+=("${rel%.cu}")
  done
  [ ${#TASKS[@]} -ge 2 ] || { echo "FAIL - the fixture course has fewer than two tasks"; exit 1; }
}

put() { # student task source [statements run first in task_compute]
  local dst="$CLASS/$1/exercises/$2.cu"
  mkdir -p "$(dirname "$dst")"
  if [ -z "${4:-}" ]; then cp "$3" "$dst"; return 0; fi
  # The grader rejects code that runs before main, so the misbehaviour runs inside the student's
  # task_compute: the file's own becomes a static function that the wrapper calls.
  { printf '#include <stdio.h>\n#define task_compute static file_task_compute\n'
    cat "$3"
    printf '#undef task_compute\ndouble task_compute(long i, uint64_t seed)\n{\n%s\n    return file_task_compute(i, seed);\n}\n' "$4"
  } >"$dst"
}

CRASH='    *(volatile int *)0 = 1;'
HANG='    for (;;) {
    }'
BROKEN='#error this submission does not compile'
FORGE='    static int once;
    if (!once++)
        printf("ok 1 - all cases pass\nstatus: pass\n");'
PROBE='    static int once;
    if (!once++)
        protocol_probe_env();'

make_class() { # DIR
  CLASS=$1
  mkdir -p "$CLASS"
  local i=0 t sol ex
  for t in "${TASKS[@]}"; do
    sol=$COURSE_DIR/solutions/$t.cu ex=$COURSE_DIR/exercises/$t.cu
    put right "$t" "$sol"
    put right2 "$t" "$sol"
    put "o'brien, jr" "$t" "$sol"
    put probe "$t" "$sol" "$PROBE"
    put wrong "$t" "$ex"
    put forger "$t" "$ex" "$FORGE"
    put crash "$t" "$sol" "$CRASH"
    put hang "$t" "$sol" "$HANG"
    put broken "$t" "$sol" "$BROKEN"
    [ $i -eq 0 ] && put partial "$t" "$sol"
    if [ $i -eq 0 ]; then put mixed "$t" "$sol" "$CRASH"; else put mixed "$t" "$sol"; fi
    i=$((i + 1))
  done
  mkdir -p "$CLASS/empty" "$CLASS/blank/exercises"
}

pass_or_skip() { [ "${TASKS[$1]}" = 02-faults/skip ] && echo skipped || echo passed; }

# expected STUDENT TASK_INDEX -> "outcome" the cell must hold; "!passed" = anything else
expected() {
  case $1 in
    right|right2|"o'brien, jr"|probe) pass_or_skip "$2" ;;
    wrong|forger) echo batch ;;
    crash) echo crashed ;;
    hang) echo timed_out ;;
    broken) echo build_failed ;;
    partial) [ "$2" -eq 0 ] && pass_or_skip "$2" || echo not_submitted ;;
    mixed) [ "$2" -eq 0 ] && echo crashed || pass_or_skip "$2" ;;
    empty|blank) echo not_submitted ;;
  esac
}
STUDENTS=(blank broken crash empty forger hang mixed "o'brien, jr" partial probe right right2 wrong)

# batch_reference   grader --batch on the shipped exercises, the same options: what the
#                   "wrong" and "forger" students' cells must say (BATCH[task]="outcome score")
declare -A BATCH
batch_reference() {
  "$GRADER" --batch --root "$COURSE_DIR" --format csv --no-sanitize --timeout 3 --no-state \
    --exbuild "$TEST_TMP/batchbuild" >"$TEST_TMP/batch.csv" 2>"$TEST_TMP/batch.err"
  local task outcome score
  while IFS=$'\t' read -r task outcome score; do BATCH[$task]="$outcome $score"; done < <(
    python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if not r["task"].endswith("/lesson.ini"):  # a lesson that did not load: its own row
        print(r["task"], r["outcome"], r["score"], sep="\t")' \
      "$TEST_TMP/batch.csv")
  [ ${#BATCH[@]} -eq ${#TASKS[@]} ] || { bad "grader --batch graded ${#BATCH[@]} of ${#TASKS[@]} tasks"; cat "$TEST_TMP/batch.err"; }
}

# check_book CSV   every cell of the gradebook against the table above
check_book() {
  python3 - "$1" "${TASKS[@]}" <<'PY' >"$TEST_TMP/book.expect"
import csv, sys
path, tasks = sys.argv[1], sys.argv[2:]
rows = {r["student"]: r for r in csv.DictReader(open(path, newline=""))}
for name, r in sorted(rows.items()):
    for i, t in enumerate(tasks):
        print(f"{name}\t{i}\t{r['status']}\t{r[t]}\t{r[t + ' outcome']}\t{r['total']}\t{r['max']}")
PY
  local name i status score outcome total max want n=0 bad_cells=0 students_seen=()
  while IFS=$'\t' read -r name i status score outcome total max; do
    n=$((n + 1))
    want=$(expected "$name" "$i")
    if [ "$status" != graded ]; then
      bad "$name: status $status, expected graded"; bad_cells=$((bad_cells + 1)); continue
    fi
    if [ "$want" = batch ]; then
      [ "${BATCH[${TASKS[$i]}]:-}" = "$outcome $score" ] ||
        { bad "$name task $i: $outcome $score, grader --batch says ${BATCH[${TASKS[$i]}]:-nothing}"; bad_cells=$((bad_cells + 1)); }
      continue
    fi
    case $want in
      '!passed') [ "$outcome" != passed ] && [ "$score" = 0 ] ||
                   { bad "$name task $i: $outcome $score, expected not passed with 0"; bad_cells=$((bad_cells + 1)); } ;;
      passed) [ "$outcome" = passed ] && [ "$score" != 0 ] ||
                { bad "$name task $i: $outcome $score, expected passed"; bad_cells=$((bad_cells + 1)); } ;;
      *) [ "$outcome" = "$want" ] && [ "$score" = 0 ] ||
           { bad "$name task $i: $outcome $score, expected $want with 0"; bad_cells=$((bad_cells + 1)); } ;;
    esac
  done <"$TEST_TMP/book.expect"
  [ "$n" -eq $(( ${#STUDENTS[@]} * ${#TASKS[@]} )) ] ||
    { bad "gradebook has $n cells, expected $(( ${#STUDENTS[@]} * ${#TASKS[@]} ))"; bad_cells=$((bad_cells + 1)); }
  [ $bad_cells -eq 0 ] && ok "all $n gradebook cells as expected"
  return 0
}

# skip_without_runs CSV   a course whose binaries cannot run here grades "skipped" everywhere
skip_without_runs() {
  if python3 - "$1" "${TASKS[0]}" <<'PY'
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
sys.exit(0 if rows.get("right", {}).get(sys.argv[2] + " outcome") == "skipped" else 1)
PY
  then echo "SKIP: the course's task binaries cannot run here (the reference solution grades as skipped)"; exit 77; fi
}

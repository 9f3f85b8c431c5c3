#!/usr/bin/env bash
# A new lesson with one graded task, every file the course expects, from the templates of
# tools/new-task/: the task is a vector scale (y = a·x) with its reference solution, so the
# scaffold builds and passes `make check-lab` and `make test` as it is; then replace the task,
# the notes and the demo with the lesson's own (CONTRIBUTING.md, "A new lesson").
#   tools/new-task.sh [--title TEXT] [--root DIR] NN-lesson-name task_name
# Writes (L = NN-lesson-name, T = task_name):
#   lessons/L/  lesson.ini T.h T_harness.cu demo.cu README.md profile.ini plot.gp figures/T_*.svg
#   exercises/L/T.cu   solutions/L/T.cu solutions/L/ANSWERS.md
#   tests/harness/test_L.sh   tests/gpu/test_L.sh
# and adds the lesson's row to README.md's course table. Refuses a lesson or task that exists.
set -u
usage='usage: tools/new-task.sh [--title TEXT] [--root DIR] NN-lesson-name task_name   scaffold a lesson with one graded task'
die() { echo "tools/new-task.sh: $*" >&2; exit 2; }

templates=$(cd "$(dirname "$0")" && pwd)/new-task
root=$(cd "$(dirname "$0")/.." && pwd)
title=
args=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) echo "$usage"; exit 0 ;;
    --title) [ $# -ge 2 ] || die "--title needs a value"; title=$2; shift 2 ;;
    --root) [ $# -ge 2 ] || die "--root needs a value"; root=$2; shift 2 ;;
    -*) die "unknown option '$1' ($usage)" ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] || die "expected a lesson and a task name ($usage)"
lesson=${args[0]} task=${args[1]}

[[ $lesson =~ ^([0-9][0-9])-[a-z0-9]+(-[a-z0-9]+)*$ ]] ||
  die "lesson '$lesson' is not NN-name (two digits, a dash, lower-case words joined by dashes)"
nn=${BASH_REMATCH[1]}
[[ $task =~ ^[a-z][a-z0-9_]*$ ]] || die "task '$task' is not a C name in lower case (a-z, 0-9, _)"
[ -d "$root/lessons" ] && [ -f "$root/README.md" ] || die "$root holds no course (lessons/, README.md)"
[ ! -e "$root/lessons/$lesson" ] || die "lessons/$lesson exists"
for d in "$root"/lessons/"$nn"-*; do
  [ -e "$d" ] && die "lesson number $nn is taken by lessons/${d##*/}"
done
for f in "$root"/lessons/*/"${task}_harness.cu"; do
  [ -e "$f" ] && die "task '$task' exists in lessons/$(basename "$(dirname "$f")")"
done
grep -q '^| \[[0-9][0-9]-[a-z0-9-]*\](lessons/' "$root/README.md" ||
  die "README.md has no course table to add the lesson to"
[ -n "$title" ] || title=$(echo "${lesson#??-}" | tr '-' ' ')
case $title in *[@\|/\\]*) die "the title may not hold @, |, / or \\" ;; esac
upper=$(echo "$task" | tr '[:lower:]' '[:upper:]')

# fill TEMPLATE DEST: the template with its @WORDS@ replaced
fill() {
  mkdir -p "$(dirname "$2")" &&
    sed -e "s/@LESSON@/$lesson/g" -e "s/@NN@/$nn/g" -e "s/@TASK@/$task/g" \
        -e "s/@TASK_UPPER@/$upper/g" -e "s/@TITLE@/$title/g" "$templates/$1" >"$2" ||
    die "cannot write $2"
  echo "  new     ${2#"$root"/}"
}

L=$root/lessons/$lesson
fill lesson.ini.in      "$L/lesson.ini"
fill task.h.in          "$L/$task.h"
fill task_harness.cu.in "$L/${task}_harness.cu"
fill demo.cu.in         "$L/demo.cu"
fill README.md.in       "$L/README.md"
fill profile.ini.in     "$L/profile.ini"
fill plot.gp.in         "$L/plot.gp"
fill blocks.svg.in      "$L/figures/${task}_blocks.svg"
fill bytes.svg.in       "$L/figures/${task}_bytes.svg"
fill exercise.cu.in     "$root/exercises/$lesson/$task.cu"
fill solution.cu.in     "$root/solutions/$lesson/$task.cu"
fill ANSWERS.md.in      "$root/solutions/$lesson/ANSWERS.md"
fill test_harness.sh.in "$root/tests/harness/test_$lesson.sh"
fill test_gpu.sh.in     "$root/tests/gpu/test_$lesson.sh"

# The course table keeps the lessons' order: the row goes before the first lesson after it.
row="| [$lesson](lessons/$lesson/README.md) | $title | \`$task\` |"
awk -v row="$row" -v l="$lesson" '
  /^\| \[[0-9][0-9]-[a-z0-9-]*\]\(lessons\// {
    name = substr($0, 4); name = substr(name, 1, index(name, "]") - 1)
    if (!done && name > l) { print row; done = 1 }
    last = NR
  }
  { lines[NR] = $0 }
  END {
    for (i = 1; i <= NR; i++) { print lines[i]; if (i == last && !done) print row }
  }' "$root/README.md" >"$root/README.md.new" && mv "$root/README.md.new" "$root/README.md" ||
  die "cannot add the lesson to README.md"
echo "  edit    README.md (the course table)"
echo "next: make build/lessons/$lesson/demo build/solutions/$lesson/$task build/exercises/$lesson/$task && make check-lab"

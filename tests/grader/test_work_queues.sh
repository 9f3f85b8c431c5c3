#!/usr/bin/env bash
# The GPU's work queues each program of a grading opens (CUDA_DEVICE_MAX_CONNECTIONS): one for
# a task that says nothing, lesson.ini's work_queues for one that does, and one for the
# sanitizers' runs whatever the task says. An exercise that finds anything else answers wrong
# in its graded run, and fails under the tool.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics

exercise() { # QUEUES: the value the graded run must see
  cat <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "protocol.h"
C
  c_dump_arg
  cat <<C

/* Under the tool the dump is not named "dump" (grade_san.c: dump1, dump2, ...). */
static int under_tool(void)
{
    const char *dump = dump_arg(), *name = dump ? strrchr(dump, '/') : NULL;
    return dump && strcmp(name ? name + 1 : dump, "dump") != 0;
}

double task_compute(long i, uint64_t seed)
{
    static int first = 1, wrong;
    if (first) {
        first = 0;
        const char *q = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
        int tool = under_tool();
        wrong = !q || strcmp(q, tool ? "1" : "$1") != 0;
        if (wrong && tool)
            _exit(5);
    }
    return protocol_expected(i, seed) + wrong;
}
C
}

grade() { # NAME: pass graded with the stand-in sanitizer, its report in NAME.json
  PATH="$FAKE_SANITIZER_DIR:$PATH" "$GRADER" --batch --root "$course" --seed 5 --no-objcheck pass \
    --format json --output "$TEST_TMP/$1.json" 2>"$TEST_TMP/$1.err"
}
passed_clean='
t = d["tasks"][0]
assert t["outcome"] == "passed", (t["outcome"], t["reason"], t["sanitizers"])
assert [s["status"] for s in t["sanitizers"]] == ["clean"], t["sanitizers"]
'

exercise 1 >"$course/exercises/01-basics/pass.cu"
grade default
py_json "no work_queues: one queue for the graded run and the sanitizer" "$passed_clean" \
  "$TEST_TMP/default.json"

sed -i 's/^\[task\.pass\]$/&\nwork_queues = 3/' "$course/lessons/01-basics/lesson.ini"
exercise 3 >"$course/exercises/01-basics/pass.cu"
grade three
py_json "work_queues = 3: three for the graded run, one for the sanitizer" "$passed_clean" \
  "$TEST_TMP/three.json"

# the check itself: the exercise that wants 1 is wrong where the task says 3
exercise 1 >"$course/exercises/01-basics/pass.cu"
grade mismatch
py_json "an exercise that sees another number answers wrong" \
  'assert d["tasks"][0]["outcome"] == "wrong", d["tasks"][0]["outcome"]' "$TEST_TMP/mismatch.json"

sed -i 's/^work_queues = 3$/work_queues = 0/' "$course/lessons/01-basics/lesson.ini"
expect_exit 1 "work_queues = 0: the lesson does not load" \
  "$GRADER" --batch --root "$course" --no-sanitize
expect_grep "lesson.ini:[0-9]*: work_queues: not a whole number from 1 to 32" "$TEST_TMP/out" \
  "the error names the key and its bounds"
finish

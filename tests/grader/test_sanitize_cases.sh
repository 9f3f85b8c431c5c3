#!/usr/bin/env bash
# The cases compute-sanitizer runs, and its runs' outputs verified: with the stand-in
# sanitizer (it prints the tool and the program's arguments), a task whose --list has small,
# awkward, scaled (sanitize), large and speed cases gets every case but the speed case and the
# large one under each tool, in one run per tool; lesson.ini's sanitize_case narrows that to its case and the
# scaled one; and a program that answers right in its graded run but wrong under the tool is
# wrong, with the tool and the case named.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.sh"

course=$TEST_TMP/course
fixture_copy "$course" 01-basics
cat >"$course/lessons/01-basics/pass_harness.cu" <<'C'
#include "lab_protocol.h"
#include "protocol.h"

const struct protocol_case *protocol_cases(size_t *n)
{
    static const struct protocol_case cases[] = {
        {"1", 1, LAB_LIST_NONE, -1},
        {"17", 17, LAB_LIST_SMALL, -1},
        {"1000", 1000, LAB_LIST_NONE, -1},
        {"5000", 5000, LAB_LIST_SANITIZE, -1},
        {"40000", 40000, LAB_LIST_LARGE, -1},
        {"20000", 20000, LAB_LIST_SPEED, -1},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}

int main(int argc, char **argv)
{
    return protocol_main("pass", argc, argv);
}
C
sed -i 's/^\[task\.pass\]$/&\nsanitizers = memcheck racecheck/' "$course/lessons/01-basics/lesson.ini"

grade() { # NAME: pass graded with the stand-in sanitizer, its report in NAME.json
  PATH="$FAKE_SANITIZER_DIR:$PATH" "$GRADER" --batch --root "$course" --seed 5 --no-objcheck pass \
    --format json --output "$TEST_TMP/$1.json" 2>"$TEST_TMP/$1.err"
}

# cases_run NAME TOOL: the --case arguments the stand-in sanitizer was given, space-separated
cases_run() {
  grep -m1 "^fake-sanitizer $2:" "$course/build/grader/01-basics/pass/sanitizer-$2.log" |
    grep -o -- '--case [^ ]*' | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//'
}
# expect_cases WHAT WANT: both tools ran exactly these cases
expect_cases() {
  local tool got
  for tool in memcheck racecheck; do
    got=$(cases_run "$1" $tool)
    [ "$got" = "$2" ] && ok "$1: $tool runs the cases $2" || bad "$1: $tool ran '$got', expected '$2'"
  done
}
passed_clean='
t = d["tasks"][0]
assert t["outcome"] == "passed", (t["outcome"], t["reason"], t["sanitizers"])
assert [s["status"] for s in t["sanitizers"]] == ["clean", "clean"], t["sanitizers"]
'

# --list says which case is the scaled one
"$course/build/solutions/01-basics/pass" --list >"$TEST_TMP/list" 2>&1 ||
  make -s -C "$course" build/solutions/01-basics/pass >/dev/null 2>&1
"$course/build/solutions/01-basics/pass" --list >"$TEST_TMP/list" 2>&1
expect_grep $'^5000\t5000\tsanitize$' "$TEST_TMP/list" "the stand-in lists the scaled case"

# lesson.ini names a sanitize_case (the fixture's 17): that case and the scaled one
grade named
py_json "sanitize_case: passed, both tools clean" "$passed_clean" "$TEST_TMP/named.json"
expect_cases "sanitize_case = 17" "17 5000"

# none named: every case but the speed case and the large one, the scaled one included
sed -i '/^sanitize_case = 17$/d' "$course/lessons/01-basics/lesson.ini"
grade every
py_json "no sanitize_case: passed, both tools clean" "$passed_clean" "$TEST_TMP/every.json"
expect_cases "no sanitize_case" "1 17 1000 5000"

# Right in its graded run, wrong under the tool (its --dump is not named "dump"): the tool's
# dump is verified as the graded run's is.
{
  echo '#include <stdio.h>'
  echo '#include <string.h>'
  echo '#include "protocol.h"'
  c_dump_arg
  cat <<'C'

double task_compute(long i, uint64_t seed)
{
    const char *dump = dump_arg(), *name = dump ? strrchr(dump, '/') : NULL;
    int watched = dump && strcmp(name ? name + 1 : dump, "dump") != 0;
    return protocol_expected(i, seed) + (watched && i == 4321 ? 1.0 : 0.0);
}
C
} >"$course/exercises/01-basics/pass.cu"
grade watched
py_json "wrong only under the tool: wrong, the tool and the scaled case named" '
t = d["tasks"][0]
assert t["outcome"] == "wrong", (t["outcome"], t["reason"])
assert t["reason"].startswith("under compute-sanitizer (memcheck), case 5000: 1 of 5000 elements wrong"), t["reason"]
assert all(c["status"] == "pass" for c in t["cases"]), t["cases"]
' "$TEST_TMP/watched.json"

finish

#!/usr/bin/env bash
# The lists the READMEs repeat from the code stay the code's: the report formats (the grader's
# report.c and --help), the outcomes (grader/engine/model/outcome.h), the grader's source files and the
# course's lessons and tasks (what ls finds); and every path a README names exists. CPU only.
# The checks themselves: tests/tools/readme_lists.py. They are first shown to fail on a README
# that drifted (a format, an outcome, a source file and a path each left out or made up).
source "$(dirname "$0")/../lib.sh"

command -v python3 >/dev/null || { bad "python3 is needed"; finish; }
GRADER=$ROOT/build/grader/grader
[ -x "$GRADER" ] || { bad "$GRADER missing (make build/grader/grader)"; finish; }
"$GRADER" --help >"$TEST_TMP/help" 2>&1 || bad "grader --help exits nonzero"

# A drifted copy of the docs and the code the checks read: each drift must fail its check.
drift="$TEST_TMP/drift"
mkdir -p "$drift"
cp -r "$ROOT/README.md" "$ROOT/grader" "$ROOT/lessons" "$drift/"
[ -f "$ROOT/CONTRIBUTING.md" ] && cp "$ROOT/CONTRIBUTING.md" "$drift/"
sed -i 's/|gradescope|tap/|gradescope/' "$drift/README.md"
sed -i 's/, "implausible": [0-9]*//' "$drift/grader/README.md"
touch "$drift/grader/export/yaml.c"
sed -i 's#`lessons/L/profile.ini`#`lessons/L/profile.ini`, `lessons/01-divergence/no_such_file.cu`#' "$drift/grader/README.md"
python3 "$ROOT/tests/tools/readme_lists.py" "$drift" "$TEST_TMP/help" >"$TEST_TMP/drift.out" 2>&1
expect_grep "^FAIL - README.md's --format list" "$TEST_TMP/drift.out" "a format left out of README.md fails"
expect_grep "^FAIL - grader/README.md's JSON counts" "$TEST_TMP/drift.out" "an outcome left out of the JSON example fails"
expect_grep "^FAIL - grader/README.md's Sources table.*not listed: export/yaml.c" "$TEST_TMP/drift.out" \
  "a source file the Sources table does not list fails"
expect_grep "^FAIL - every path grader/README.md names exists: lessons/01-divergence/no_such_file.cu" "$TEST_TMP/drift.out" \
  "a path to no file fails"

# The course as it is.
if python3 "$ROOT/tests/tools/readme_lists.py" "$ROOT" "$TEST_TMP/help" >"$TEST_TMP/out" 2>&1; then
  ok "the READMEs' lists are the code's and every path they name exists ($(grep -c '^ok' "$TEST_TMP/out") checks)"
else
  bad "the READMEs disagree with the code:"; grep -v '^ok' "$TEST_TMP/out" | sed 's/^/    /'
fi
finish

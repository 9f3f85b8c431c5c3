#!/usr/bin/env bash
# Every report format, checked by parsing it; exit statuses of --batch.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics 02-faults
tasks=(pass wrong forged 02-faults/skip)
run() { "$GRADER" --batch --root "$course" --seed 11 --no-sanitize "$@"; }

for f in json csv junit gradescope text tap; do
  run "${tasks[@]}" --format $f --output "$TEST_TMP/r.$f" >/dev/null 2>&1
  rc=$?
  [ $rc -eq 1 ] && ok "--format $f exits 1 with a wrong task" || bad "--format $f: exit $rc, expected 1"
done

py_json "json: totals, counts and one object per named task" '
assert d["format"] == 1 and d["score"] == 10 and d["max_score"] == 20, (d["score"], d["max_score"])
assert d["all_passed"] is False
assert d["counts"]["passed"] == 1 and d["counts"]["wrong"] == 2 and d["counts"]["skipped"] == 1
assert [t["id"] for t in d["tasks"]] == ["01-basics/pass", "01-basics/wrong", "01-basics/forged", "02-faults/skip"]
for t in d["tasks"]:
    for k in ("id", "lesson", "task", "title", "weight", "outcome", "outcome_text", "score",
              "max_score", "reason", "seed", "duration_s", "cases", "speed", "sanitizers",
              "findings", "diagnostics", "forbidden", "build_log", "stdout", "stderr"):
        assert k in t, (t["id"], k)
' "$TEST_TMP/r.json"

py_json "gradescope: score, tests[] with name, score, max_score, status, output" '
assert d["score"] == 10 and len(d["tests"]) == 4
for t in d["tests"]:
    assert set(("name", "score", "max_score", "status", "output")) <= set(t), t
    assert t["status"] in ("passed", "failed")
p = d["tests"][0]
assert p["name"].startswith("01-basics/pass") and p["status"] == "passed" and p["score"] == 10
# a skipped task puts no points at stake, as in every other report
assert d["tests"][3]["max_score"] == 0 and "skipped" in d["tests"][3]["output"]
assert d["extra_data"]["seed"] == "11" and d["tests"][1]["extra_data"]["outcome"] == "wrong"
' "$TEST_TMP/r.gradescope"

if python3 - "$TEST_TMP/r.junit" >"$TEST_TMP/py.out" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.get("tests") == "4", root.attrib
assert root.get("failures") == "2" and root.get("errors") == "0", root.attrib
assert sum(int(s.get("skipped")) for s in root.findall("testsuite")) == 1
cases = root.findall("./testsuite/testcase")
assert [c.get("name") for c in cases] == ["pass", "wrong", "forged", "skip"]
assert cases[0].find("failure") is None and cases[1].find("failure") is not None
assert "expected" in cases[1].find("failure").get("message")
assert cases[3].find("skipped") is not None
PY
then ok "junit: well-formed, counts, a failure per wrong task, skipped"; else bad "junit"; cat "$TEST_TMP/py.out"; fi

if python3 - "$TEST_TMP/r.csv" >"$TEST_TMP/py.out" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["task"] for r in rows] == ["01-basics/pass", "01-basics/wrong", "01-basics/forged", "02-faults/skip"]
assert [r["outcome"] for r in rows] == ["passed", "wrong", "wrong", "skipped"]
assert rows[0]["score"] == "10" and rows[1]["cases_passed"] == "1" and rows[1]["cases"] == "4"
assert "expected" in rows[1]["reason"]
PY
then ok "csv: a header and one row per task"; else bad "csv"; cat "$TEST_TMP/py.out"; fi

expect_grep '^  pass +passed +10/10' "$TEST_TMP/r.text" "text: one line per task with outcome and score"
expect_grep '^score: 10/20' "$TEST_TMP/r.text" "text: the closing score line"
expect_grep '^not ok 2 - 01-basics/wrong: wrong$' "$TEST_TMP/r.tap" "tap: one line per task with its outcome"

expect_exit 0 "every named task passed: exit 0" run pass
expect_exit 77 "every named task skipped: exit 77" run 02-faults/skip
expect_exit 0 "passed and skipped together: exit 0" run pass skip
run pass --format json >"$TEST_TMP/stdout.json" 2>/dev/null
py_json "without --output the report goes to stdout" 'assert d["tasks"][0]["outcome"] == "passed"' "$TEST_TMP/stdout.json"

finish

#!/usr/bin/env bash
# Reports that other programs must accept, whatever bytes the students' programs print:
#   every format is valid UTF-8 (a compiler message with \xff and \x01 in it);
#   JUnit validates against tests/grader/junit.xsd (the junit-10 rules) and its totals are the
#   counts of its children, for --batch and for the class's junit.xml;
#   TAP passes prove and TAP::Parser;
#   --batch --format gradescope and grader class write the same results.json for one student
#   and seed, measured times aside;
#   grader class bounds its own make runs (--make-timeout).
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"
for tool in xmllint prove python3; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics 02-faults
# pass.cu of the course copy does not compile, and the compiler repeats its bytes
printf '#error bad \xff\x01 byte\n' >"$course/exercises/01-basics/pass.cu"
run() { "$GRADER" --batch --root "$course" --seed 11 --no-sanitize --no-state "$@"; }
tasks=(pass wrong forged slow 02-faults/crash 02-faults/skip)

# ---- every format is UTF-8, the bytes replaced; XML has no control characters
for f in text json csv junit gradescope tap; do
  run "${tasks[@]}" --format $f --output "$TEST_TMP/r.$f" >/dev/null 2>&1
done
if python3 - "$TEST_TMP" >"$TEST_TMP/py.out" 2>&1 <<'PY'
import csv, io, json, sys
d = sys.argv[1]
for f in ("text", "json", "csv", "junit", "gradescope", "tap"):
    raw = open(f"{d}/r.{f}", "rb").read()
    text = raw.decode("utf-8")                      # strict: raises on an invalid byte
    assert "\ufffd" in text, f"{f}: the invalid byte is not replaced"
    assert "\x01" not in text, f"{f}: a control character is left"
for f in ("json", "gradescope"):
    json.load(open(f"{d}/r.{f}", encoding="utf-8"))
rows = list(csv.DictReader(io.StringIO(open(f"{d}/r.csv", encoding="utf-8", newline="").read())))
assert rows[0]["outcome"] == "build_failed" and "bad \ufffd" in rows[0]["reason"], rows[0]
PY
then ok "text, JSON, CSV, JUnit, Gradescope, TAP: valid UTF-8, invalid bytes as U+FFFD"
else bad "UTF-8"; cat "$TEST_TMP/py.out"; fi
xmllint --noout "$TEST_TMP/r.junit" 2>"$TEST_TMP/xl" && ok "junit: xmllint reads it" || { bad "junit: xmllint"; cat "$TEST_TMP/xl"; }

# ---- JUnit: the schema, and totals that are the counts of the children
junit_ok() { # FILE WHAT
  if xmllint --noout --schema "$ROOT/tests/grader/junit.xsd" "$1" >"$TEST_TMP/xl" 2>&1; then
    ok "$2: validates against the junit-10 rules"
  else bad "$2: schema"; tail -n 5 "$TEST_TMP/xl"; fi
  if python3 - "$1" >"$TEST_TMP/py.out" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
tot = {"tests": 0, "failures": 0, "errors": 0}
for s in root.findall("testsuite"):
    cases = s.findall("testcase")
    n = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
         "errors": sum(c.find("error") is not None for c in cases),
         "skipped": sum(c.find("skipped") is not None for c in cases)}
    for k, v in n.items():
        assert int(s.get(k)) == v, (s.get("name"), k, s.get(k), v)
    for k in tot:
        tot[k] += n[k]
for k, v in tot.items():
    assert int(root.get(k)) == v, ("testsuites", k, root.get(k), v)
assert root.get("skipped") is None
PY
  then ok "$2: every total is the count of its children"; else bad "$2: totals"; cat "$TEST_TMP/py.out"; fi
}
junit_ok "$TEST_TMP/r.junit" "batch junit"
python3 - "$TEST_TMP/r.junit" >"$TEST_TMP/py.out" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
kind = {c.get("name"): [e.tag for e in c] for c in ET.parse(sys.argv[1]).getroot().iter("testcase")}
want = {"pass": ["error"], "wrong": ["failure"], "forged": ["failure"], "slow": ["failure"],
        "crash": ["error"], "skip": ["skipped"]}
assert all(kind[k] == v for k, v in want.items()), kind
PY
[ $? -eq 0 ] && ok "batch junit: the element of each outcome from the outcome table" || { bad "junit kinds"; cat "$TEST_TMP/py.out"; }

# ---- TAP: prove and TAP::Parser
prove_says() { # FILE PATTERN WHAT
  prove -v --exec cat "$1" >"$TEST_TMP/prove.out" 2>&1
  expect_grep "$2" "$TEST_TMP/prove.out" "$3"
  ! grep -q "Parse errors" "$TEST_TMP/prove.out" || bad "$3: prove reports parse errors"
}
prove_says "$TEST_TMP/r.tap" "^Result: FAIL" "tap: a report with failing tasks fails in prove"
expect_grep "^ok [0-9]+ - 02-faults/skip # SKIP " "$TEST_TMP/r.tap" "tap: a skipped task is ok # SKIP"
run wrong --format tap --output "$TEST_TMP/w.tap" >/dev/null 2>&1
if perl -MTAP::Parser -e '
  my $p = TAP::Parser->new({ source => $ARGV[0] }); my ($yaml, $bad) = (0, 0);
  while (my $r = $p->next) { $yaml++ if $r->is_yaml && $r->data->{outcome} eq "wrong" && $r->data->{message} =~ /expected/; }
  exit(($p->parse_errors || !$yaml || $p->failed != 1) ? 1 : 0);' "$TEST_TMP/w.tap"
then ok "tap: TAP::Parser reads the YAML diagnostics (outcome, message)"; else bad "tap: TAP::Parser"; cat "$TEST_TMP/w.tap"; fi
passcourse="$TEST_TMP/passcourse"
fixture_copy "$passcourse" 01-basics
"$GRADER" --batch --root "$passcourse" --seed 11 --no-sanitize --no-state --format tap pass \
  >"$TEST_TMP/p.tap" 2>/dev/null
prove_says "$TEST_TMP/p.tap" "^Result: PASS" "tap: a fully passing report passes in prove"
run 02-faults/skip --format tap --output "$TEST_TMP/s.tap" >/dev/null 2>&1
expect_grep "^1\.\.0 # SKIP " "$TEST_TMP/s.tap" "tap: a skipped run is the plan 1..0 with a SKIP reason"
prove_says "$TEST_TMP/s.tap" "skipped: " "tap: prove reads the skipped run as skipped"

# ---- the class: the same results.json as --batch, a junit.xml to the schema
cls="$TEST_TMP/class" work="$TEST_TMP/work"
# the course of 01-basics without its speed-graded task "slow": whether a program is fast
# enough is measured, so it may differ between two gradings of the same code
classcourse="$TEST_TMP/classcourse"
fixture_copy "$classcourse" 01-basics
sed -i '/^\[task\.slow\]/,/^$/d' "$classcourse/lessons/01-basics/lesson.ini"
rm -f "$classcourse"/*/01-basics/slow.cu
# students who submitted every task: right (solutions), wrong (shipped exercises), broken
# (solutions, but pass.cu prints invalid bytes into the compiler's message)
for s in right wrong broken; do mkdir -p "$cls/$s/exercises/01-basics"; done
cp "$classcourse"/solutions/01-basics/*.cu "$cls/right/exercises/01-basics/"
cp "$classcourse"/solutions/01-basics/*.cu "$cls/broken/exercises/01-basics/"
cp "$classcourse"/exercises/01-basics/*.cu "$cls/wrong/exercises/01-basics/"
cp "$course/exercises/01-basics/pass.cu" "$cls/broken/exercises/01-basics/"
"$GRADER" class "$cls" --course "$classcourse" --no-sanitize --seed 5 --work "$work" --keep-work \
  >"$TEST_TMP/class.out" 2>&1 || { bad "grader class: exit $?"; tail -n 5 "$TEST_TMP/class.out"; }
junit_ok "$cls/junit.xml" "class junit.xml"
for s in right wrong broken; do
  seed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["extra_data"]["seed"])' "$cls/$s/results.json")
  safe="$s-$(printf %s "$s" | sha256sum | cut -c1-8)"
  # the class's own scratch directory, and at its link's path a copy of what the link showed
  # (a link to outside would be refused: owntree.h), so that every path in the record is the same
  rm -f "$work/$safe/exercises-src"
  cp -r "$cls/$s/exercises" "$work/$safe/exercises-src"
  "$GRADER" --batch --root "$classcourse" --no-sanitize --no-state --seed "$seed" --format gradescope \
    --exercises "$work/$safe/exercises-src" --exbuild "$work/$safe" --output "$TEST_TMP/$s.batch.json" >/dev/null 2>&1
  # --batch names the real directory of --exercises, the class its link: the one difference
  if python3 - "$cls/$s/results.json" "$TEST_TMP/$s.batch.json" "$work/$safe/exercises-src" \
       "$cls/$s/exercises" >"$TEST_TMP/py.out" 2>&1 <<'PY'
import json, sys
import re
LINK, REAL = sys.argv[3:5]
# measured: wall times, the programs' own timings and what is computed from them, and whether
# the class's grading shared its reference time with another (a single grading never does);
# whether the speed was cross-checked under ncu follows the ratio and a random draw
TIMES = {"execution_time", "graded_at", "duration_s", "wait_s", "steps", "gpu", "time_ms", "ref_time_ms",
         "ref_min_ms", "ref_max_ms", "ref_shared", "ref_age_s", "first_ratio", "throughput", "ratio",
         "ncu", "ncu_ms", "witness_ms"}
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in TIMES}
    if isinstance(x, list):
        return [strip(v) for v in x]
    if isinstance(x, str):
        return re.sub(r"[0-9.e+-]+ x the reference", "R x the reference", x.replace(LINK, REAL))
    return x
def diff(a, b, at=""):
    if type(a) != type(b) or not isinstance(a, (dict, list)):
        if a != b:
            print(at, repr(a)[:200], "vs", repr(b)[:200])
        return
    keys = set(a) | set(b) if isinstance(a, dict) else range(max(len(a), len(b)))
    for k in keys:
        try:
            diff(a[k], b[k], f"{at}/{k}")
        except (KeyError, IndexError):
            print(f"{at}/{k}: only one side has it")
a, b = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
for k in ("student", "content_hash"):     # what only a class knows
    a["extra_data"].pop(k)
    assert k not in b["extra_data"], k
a, b = strip(a), strip(b)
if a != b:
    diff(a, b)
    sys.exit(1)
PY
  then ok "$s: grader class and --batch --format gradescope write the same results.json"
  else bad "$s: results.json differs"; head -c 3000 "$TEST_TMP/py.out"; fi
done
python3 -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$cls/gradebook.csv" &&
  grep -q $'\xef\xbf\xbd' "$cls/broken/results.json" && ok "class: results.json and gradebook.csv are UTF-8" ||
  bad "class: not UTF-8"

# ---- a class whose every graded task was skipped exits 77, as --batch does (no GPU here)
skipcourse="$TEST_TMP/skipcourse" skipcls="$TEST_TMP/skipclass"
fixture_copy "$skipcourse" 02-faults
printf '[lesson]\ntitle = Only a skip\n\n[task.skip]\n' >"$skipcourse/lessons/02-faults/lesson.ini"
mkdir -p "$skipcls/only/exercises/02-faults"
cp "$skipcourse/exercises/02-faults/skip.cu" "$skipcls/only/exercises/02-faults/"
expect_exit 77 "class: every task skipped: exit 77" "$GRADER" class "$skipcls" --course "$skipcourse" \
  --no-sanitize --work "$TEST_TMP/w3"
expect_exit 77 "collect: every task skipped: exit 77" "$GRADER" collect "$skipcls" --course "$skipcourse"
grep -q '^only,graded,' "$skipcls/gradebook.csv" && ok "class: the skipped student is in the gradebook" \
  || bad "class: no gradebook row for the skipped student"

# ---- a make that hangs is killed at --make-timeout
slow="$TEST_TMP/slowcourse"
fixture_copy "$slow" 01-basics
printf '%%:\n\tsleep 30\n' >"$slow/Makefile"
t0=$SECONDS
"$GRADER" class "$cls" --course "$slow" --no-sanitize --force --make-timeout 1 --work "$TEST_TMP/w2" \
  >"$TEST_TMP/slow.out" 2>&1
rc=$?
[ $rc -eq 1 ] && [ $((SECONDS - t0)) -lt 20 ] && ok "class: a hanging course build stops at --make-timeout (exit 1)" \
  || bad "class with a hanging make: exit $rc after $((SECONDS - t0)) s"
expect_grep "make timed out after 1 s" "$TEST_TMP/slow.out" "class: the time-out is said"
finish

#!/usr/bin/env bash
# The fixture course through the grader: every outcome, from programs that speak the protocol.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course"
before=$(tree_sum "$course/exercises")

PATH="$FAKE_SANITIZER_DIR:$PATH" "$GRADER" --batch --root "$course" --seed 7 --timeout 3 \
  --format json --output "$TEST_TMP/all.json" 2>"$TEST_TMP/stderr"
rc=$?
[ $rc -eq 1 ] && ok "batch over the fixture exits 1 (not all passed)" || bad "batch exit $rc, expected 1"

py_json "every task has its outcome" '
want = {"pass": "passed", "wrong": "wrong", "forged": "wrong", "slow": "too_slow",
        "forbidden": "rejected", "sanfail": "sanitizer", "crash": "crashed",
        "hang": "timed_out", "flood": "crashed", "forkloop": "crashed",
        "cudaerr": "cuda_error", "skip": "skipped", "fakeskip": "crashed",
        "builderr": "build_failed"}
got = {t["task"]: t["outcome"] for t in d["tasks"]}
assert got == want, {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
' "$TEST_TMP/all.json"

py_json "a pass scores its weight, with the speed measured against the reference" '
t = next(t for t in d["tasks"] if t["task"] == "pass")
assert t["score"] == 10 and t["max_score"] == 10, t
assert t["speed"]["measured"] and t["speed"]["ratio"] > 0 and t["speed"]["case"] == "20000", t["speed"]
assert all(c["status"] == "pass" for c in t["cases"]) and len(t["cases"]) == 4
assert t["seed"] == 7
' "$TEST_TMP/all.json"

py_json "a wrong answer names the case and the first mismatch" '
t = next(t for t in d["tasks"] if t["task"] == "wrong")
assert "[3] expected" in t["reason"], t["reason"]
c = {c["name"]: c for c in t["cases"]}
assert c["1"]["status"] == "pass" and c["17"]["status"] == "fail" and c["17"]["bad"] == 1
assert c["17"]["mismatches"][0].startswith("[3] expected"), c["17"]
assert t["score"] == 0
assert t["sanitizers"] == [] and t["findings"] == [], "sanitizers are reported only for a correct answer"
' "$TEST_TMP/all.json"

py_json "a forged pass (PASS printed, report rewritten, exit 0) is wrong" '
t = next(t for t in d["tasks"] if t["task"] == "forged")
assert t["exit_status"] == 0, t["exit_status"]
assert all(c["status"] == "fail" for c in t["cases"]), [c["status"] for c in t["cases"]]
' "$TEST_TMP/all.json"

py_json "too slow gives the ratio against the threshold" '
t = next(t for t in d["tasks"] if t["task"] == "slow")
assert t["speed"]["measured"] and t["speed"]["ratio"] < 0.2 and t["speed"]["threshold"] == 0.2
assert all(c["status"] == "pass" for c in t["cases"])
' "$TEST_TMP/all.json"

py_json "a forbidden symbol is rejected with the symbol, file and line named" '
t = next(t for t in d["tasks"] if t["task"] == "forbidden")
assert t["forbidden"] == ["cublas_shortcut"], t["forbidden"]
assert "forbid = cublas" in t["reason"], t["reason"]
assert t["reason"].startswith("exercises/01-basics/forbidden.cu:4: uses cublas_shortcut"), t["reason"]
' "$TEST_TMP/all.json"

py_json "a sanitizer finding has tool, kind, kernel and file:line" '
t = next(t for t in d["tasks"] if t["task"] == "sanfail")
f = t["findings"][0]
assert f["tool"] == "racecheck" and "Race reported" in f["kind"], f
assert f["kernel"] == "sum_kernel(float *, int)" and f["file"] == "exercises/01-basics/sanfail.cu" and f["line"] == 21, f
assert [s["tool"] for s in t["sanitizers"]] == ["memcheck", "racecheck"], t["sanitizers"]
assert t["sanitizers"][0]["status"] == "clean" and t["sanitizers"][1]["status"] == "findings"
' "$TEST_TMP/all.json"

py_json "crash, hang, flood and fork loop say what stopped them" '
r = {t["task"]: t["reason"] for t in d["tasks"]}
assert "SIGSEGV" in r["crash"], r["crash"]
assert "timed out after 3.0 s" in r["hang"], r["hang"]
assert "printed more than" in r["flood"], r["flood"]
assert "tried to start a process" in r["forkloop"], r["forkloop"]  # ended at its first fork
' "$TEST_TMP/all.json"

if [ -e /dev/nvidiactl ]; then skip_why="no CUDA device (fixture)"; else skip_why="no NVIDIA driver / no GPU"; fi
py_json "a CUDA error shows the failing call; a skip why (once, no SKIP: prefix) and no points at stake" '
t = {t["task"]: t for t in d["tasks"]}
assert "cudaMalloc" in t["cudaerr"]["reason"] and t["cudaerr"]["exit_status"] == 3
assert t["skip"]["reason"].startswith("'"$skip_why"'"), t["skip"]["reason"]
assert "SKIP" not in t["skip"]["reason"] and t["skip"]["max_score"] == 0
' "$TEST_TMP/all.json"

py_json "a skip the reference does not agree with (it computes) is a crash" '
t = next(t for t in d["tasks"] if t["task"] == "fakeskip")
assert t["reason"] == "exited 77 (skip) but this machine has a usable GPU", t["reason"]
assert t["score"] == 0 and t["max_score"] == 1, t
' "$TEST_TMP/all.json"

py_json "a build error has the compiler diagnostic with file:line" '
t = next(t for t in d["tasks"] if t["task"] == "builderr")
e = [x for x in t["diagnostics"] if x["severity"] == "error"][0]
assert e["file"] == "exercises/02-faults/builderr.cu" and e["line"] == 6, e
assert "not_declared_anywhere" in t["reason"], t["reason"]
' "$TEST_TMP/all.json"

py_json "missing and malformed lesson.ini: one error each, named by file (and line)" '
e = d["errors"]
assert len(e) == 2, e
assert e[0].startswith("lessons/03-missing/lesson.ini: missing"), e
assert e[1].startswith("lessons/04-malformed/lesson.ini:4: "), e
assert {t["lesson"] for t in d["tasks"]} == {"01-basics", "02-faults"}
' "$TEST_TMP/all.json"

expect_grep "04-malformed/lesson.ini:4" "$TEST_TMP/stderr" "load errors also go to stderr with a JSON report"

[ "$(tree_sum "$course/exercises")" = "$before" ] && ok "the student's exercises/ is left as it was" \
  || bad "the grader changed files under exercises/"

size=$(stat -c %s "$course/build/grader/02-faults/flood/exercise.stdout")
[ "$size" -le $((1024 * 1024 + 100)) ] && ok "the flood's captured output is capped ($size bytes)" \
  || bad "flood output not capped: $size bytes"

left=$(ps -eo args= | grep -c "^$course/build/exercises/" || true)
[ "$left" -eq 0 ] && ok "no process of a graded exercise is left running" \
  || bad "$left exercise processes left running"

# Without any compute-sanitizer the task is graded on the rest, and the report says so.
PATH=/usr/bin:/bin CUDA_HOME="$TEST_TMP/no-cuda" "$GRADER" --batch --root "$course" --seed 7 \
  sanfail --format json --output "$TEST_TMP/nosan.json" >/dev/null 2>&1
py_json "no compute-sanitizer: graded on the rest, with a note" '
t = d["tasks"][0]
s = t["sanitizers"][0]
assert t["outcome"] == "passed", t["outcome"]
assert s["status"] in ("unavailable", "clean"), s
assert s["status"] == "clean" or s["note"], s
' "$TEST_TMP/nosan.json"

# A program that fails under a tool (exit 1, no finding printed) is the sanitizer's outcome: a
# correct program passes under every tool, and one that crashes when watched hides its
# findings. A sandbox that cannot start the tool is the grader's error, never a pass.
for mode in exit1 bwrap; do
  mkdir -p "$TEST_TMP/san-$mode"
  if [ $mode = exit1 ]; then
    printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in --tool|--error-exitcode|--print-limit) shift 2 ;; *) break ;; esac; done\n"$@" >/dev/null; exit 1\n'
  else
    printf '#!/bin/sh\necho "bwrap: Can'"'"'t mkdir /usr/local/cuda/bin: No such file or directory"; exit 1\n'
  fi >"$TEST_TMP/san-$mode/compute-sanitizer"
  chmod +x "$TEST_TMP/san-$mode/compute-sanitizer"
  PATH="$TEST_TMP/san-$mode:$PATH" "$GRADER" --batch --root "$course" --seed 7 --no-state \
    01-basics/pass --format json --output "$TEST_TMP/san-$mode.json" >/dev/null 2>&1
done
py_json "failing under compute-sanitizer is the sanitizer outcome, with how it failed" '
t = d["tasks"][0]
assert t["outcome"] == "sanitizer", (t["outcome"], t["reason"])
assert "exit status 1" in t["reason"] and "under" in t["reason"], t["reason"]
assert {s["status"] for s in t["sanitizers"]} == {"failed"}, t["sanitizers"]
' "$TEST_TMP/san-exit1.json"
py_json "a sandbox that cannot start compute-sanitizer is a grader error, not a pass" '
t = d["tasks"][0]
assert t["outcome"] == "not_run", (t["outcome"], t["reason"])
assert t["reason"].startswith("grader error") and "Can" in t["reason"], t["reason"]
' "$TEST_TMP/san-bwrap.json"

finish

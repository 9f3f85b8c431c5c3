#!/usr/bin/env bash
# Gradings of one course at once, each a process of its own (the TUI and a batch in another
# terminal, several copies graded side by side): they share the course's GPU lock and must all
# end, with the outcomes each gets alone. A grading's times wait at a door of its own until its
# checks are over; they once waited there holding the GPU shared, while another grading's run
# waiting for the GPU alone kept the checks from taking it: neither ever went on.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
make -s -C "$course" >"$TEST_TMP/make.log" 2>&1 || { bad "the fixture course does not build"; finish; }
for k in 1 2 3; do cp -r "$course/solutions" "$TEST_TMP/ex$k"; done

hung=0 wrong=0
for round in 1 2 3 4 5 6; do
  for k in 1 2 3; do
    timeout -k 2 20 "$GRADER" --batch --root "$course" --exercises "$TEST_TMP/ex$k" \
      --exbuild "$TEST_TMP/build$k" --no-state --no-sanitize -j 4 pass slow wrong \
      --format json --output "$TEST_TMP/r$round-$k.json" 2>"$TEST_TMP/r$round-$k.err" &
  done
  for k in 1 2 3; do
    wait -n
    case $? in 124|137) hung=$((hung + 1)) ;; esac
  done
  for k in 1 2 3; do
    python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["tasks"]
sys.exit(0 if len(t) == 3 and all(x["outcome"] == "passed" for x in t) else 1)' \
      "$TEST_TMP/r$round-$k.json" 2>/dev/null || wrong=$((wrong + 1))
  done
  [ $hung -eq 0 ] || break
done
[ $hung -eq 0 ] && ok "three gradings of one course at once, six times over: every one ended" ||
  bad "$hung grading(s) of three at once never ended (round $round)"
[ $wrong -eq 0 ] && ok "each passed the three solutions, as alone" ||
  bad "$wrong grading(s) at once did not pass all three solutions"
finish

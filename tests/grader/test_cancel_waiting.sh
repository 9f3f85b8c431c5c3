#!/usr/bin/env bash
# A grading that waits for its turn at the GPU while another grading of the course holds it
# (here: a program that never ends, timed until its limit) still stops at Ctrl-C or SIGTERM
# within moments, saying so, instead of when the other's turn is over.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics 02-faults
cp -r "$course/solutions" "$TEST_TMP/ex"

# the holder: hang's first look has the timed runs' turn until its limit (30 s)
"$GRADER" --batch --root "$course" --no-state --no-sanitize --timeout 30 02-faults/hang \
  --format json --output "$TEST_TMP/hold.json" 2>"$TEST_TMP/hold.err" &
holder=$!
for _ in $(seq 300); do  # until the holder's program runs (its first look, which has the turn)
  pgrep -f "/hang --seed" >/dev/null && break
  sleep 0.1
done
pgrep -f "/hang --seed" >/dev/null || bad "the holder's program never ran"
"$GRADER" --batch --root "$course" --exercises "$TEST_TMP/ex" --exbuild "$TEST_TMP/b" --no-state \
  --no-sanitize 01-basics/pass --format json --output "$TEST_TMP/wait.json" 2>"$TEST_TMP/wait.err" &
waiter=$!
sleep 4
start=$(date +%s%N)
kill -TERM $waiter
for _ in $(seq 150); do kill -0 $waiter 2>/dev/null || break; sleep 0.1; done
took=$(( ($(date +%s%N) - start) / 1000000 ))
if kill -0 $waiter 2>/dev/null; then
  bad "the waiting grading was still running ${took} ms after SIGTERM"; kill -KILL $waiter
else
  [ $took -lt 5000 ] && ok "the waiting grading stopped ${took} ms after SIGTERM" ||
    bad "the waiting grading took ${took} ms to stop after SIGTERM"
fi
wait $waiter 2>/dev/null
expect_grep 'interrupted' "$TEST_TMP/wait.err" "it says it was interrupted"
kill -TERM $holder 2>/dev/null; wait $holder 2>/dev/null
finish

# The harness's side of the grader's gate on a GPU: a run said to be done (LAB_GATE_DONE) when
# the speed case's timed calls are over, before any output of theirs is dumped and before the
# other cases run; the speed case first in the report, the table in the task's order.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
bin=build/solutions/02-memory-spaces/transpose
speed=$($bin --list | awk '$NF == "speed" { print $1 }')
first=$($bin --list | awk 'NR == 1 { print $1 }')
[ -n "$speed" ] && [ "$speed" != "$first" ] || bad "transpose lists a speed case after its first case"

# The grader's side, played here: answer ready with go, and look at the report at the moment
# done arrives. The speed case is reported once its dump is written (two repetitions of
# 256 MiB, a tenth of a second and more): done must come before that. The files of the dump
# already begun are counted for the log only (the harness opens the first at once).
python3 - "$TEST_TMP" "$speed" "$bin" --seed 5 --reps 2 --warmup 1 --dump "$TEST_TMP/dump" \
  --report "$TEST_TMP/r.tap" >"$TEST_TMP/gate.txt" 2>&1 <<'PY'
import glob, os, socket, subprocess, sys
tmp, speed, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
a, b = socket.socketpair()
p = subprocess.Popen(argv, pass_fds=(b.fileno(),), env=dict(os.environ, LAB_GATE_FD=str(b.fileno())),
                     stdout=open(tmp + "/stdout", "w"), stderr=subprocess.STDOUT)
b.close()
a.settimeout(120)  # a harness that waits for a word never sent fails here, not hangs
print("first word:", a.recv(1).decode())
a.send(b"G" + bytes(8))  # go, and the key: 0 asks for no commitment (lab_protocol.h)
said = a.recv(1).decode()
tap = open(tmp + "/r.tap").read() if os.path.exists(tmp + "/r.tap") else ""
cases = tap.count("\nok ") + tap.count("\nnot ok ")
dumped = len(glob.glob(tmp + "/dump/" + speed + ".*"))
print("second word:", said)
print("at done: %d cases reported, %d files of the speed case dumped" % (cases, dumped))
a.close()  # no picks: the program picks the repetitions it dumps itself
print("exit:", p.wait(timeout=120))
PY
cat "$TEST_TMP/gate.txt"
expect_grep '^first word: R$' "$TEST_TMP/gate.txt" "the harness says ready at the gate"
expect_grep '^second word: D$' "$TEST_TMP/gate.txt" "... and done afterwards"
expect_grep '^at done: 0 cases reported, ' "$TEST_TMP/gate.txt" \
  "done comes after the speed case's timed calls, before its dump is done and before any other case"
expect_grep '^exit: 0$' "$TEST_TMP/gate.txt" "the gated run passes"
n=$(grep -cE '^(not )?ok ' "$TEST_TMP/r.tap")
[ "$n" -eq "$($bin --list | wc -l)" ] && ok "every case is in the report ($n)" || bad "the report has $n cases"
expect_grep "^ok 1 - $speed\$" "$TEST_TMP/r.tap" "the speed case ran first"
row=$(awk 'dashes { print $1; exit } /^---/ { dashes = 1 }' "$TEST_TMP/stdout")
[ "$row" = "$first" ] && ok "the table keeps the task's order ($first first)" ||
  { bad "the table's first row is '$row', not $first"; cat "$TEST_TMP/stdout"; }
expect_exit 0 "the dump verifies" $bin --verify "$TEST_TMP/dump" --seed 5 --reps 2
finish

#!/usr/bin/env bash
# The grader's TUI, driven in tmux the way a student drives it: start on a small course,
# move, grade a task (the cursor moves on after a pass), open its details, the notes (rendered
# Markdown), the hints and the build log, resize to a tiny terminal and back, watch mode
# regrading a saved file, the editor and a reset of the exercise, quit; then start again and
# find the progress kept; TERM=dumb gets plain text. Every check reads the screen with
# `tmux capture-pane`.
#
# The courses are tests/tui/course (its tasks are C programs speaking the harness protocol
# around one function, so a test can make one pass, fail or not build by editing a line) and
# the grader's fixture, tests/grader/fixture (every outcome). Both are copied to a scratch
# directory so grading writes nothing in the tree. No GPU is needed. The tmux servers are
# private to this test (sockets of their own).
source "$(dirname "$0")/../lib.sh"

# tmux is a system program: it runs with the system's libraries, not with a library path
# exported for the lab's own build (an older libtinfo there stops it from starting). The
# grader inside gets that path back in start().
tmux_sys() { env -u LD_LIBRARY_PATH tmux "$@"; }
if ! command -v tmux >/dev/null 2>&1; then
  echo "SKIP: tmux not installed (apt-get install tmux)"; exit 77
fi
if ! tmux_sys -V >/dev/null 2>&1; then
  echo "SKIP: tmux is installed but does not run: $(tmux_sys -V 2>&1 | head -n 1)"; exit 77
fi
GRADER=$ROOT/build/grader/grader
if [ ! -x "$GRADER" ]; then
  bad "no grader binary at build/grader/grader (make build/grader/grader)"; finish
fi

COURSE=$TEST_TMP/course
cp -r tests/tui/course "$COURSE"
cp .gitignore "$COURSE/" # the course's own: build output, progress, a reset's backups
stand_in_install "$COURSE"
# A git checkout, as a student's course is: `r` resets an exercise to git's HEAD version.
git -C "$COURSE" init -q && git -C "$COURSE" add -A &&
  git -C "$COURSE" -c user.name=t -c user.email=t@t commit -qm shipped ||
  { bad "cannot make the test course a git checkout"; finish; }
SESSION=tui
RUNS=0
SOCK=$TEST_TMP/tmux.0.sock
stop_servers() {
  for s in "$TEST_TMP"/tmux.*.sock; do [ -S "$s" ] && tmux_sys -S "$s" kill-server >/dev/null 2>&1; done
}
trap 'stop_servers; rm -rf "$TEST_TMP"' EXIT

tx()     { tmux_sys -S "$SOCK" "$@"; }
screen() { tx capture-pane -p -t "$SESSION"; }
keys()   { tx send-keys -t "$SESSION" "$@"; sleep 0.3; }

# wait_for PATTERN SECONDS DESCRIPTION: passes as soon as the screen matches.
wait_for() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -le "$deadline" ]; do
    if screen | grep -qE -- "$1"; then ok "$3"; return 0; fi
    sleep 0.2
  done
  bad "$3: /$1/ not on screen after $2 s"; screen | sed 's/^/    | /'
  return 1
}

# wait_gone PATTERN SECONDS DESCRIPTION: passes as soon as the screen stops matching.
wait_gone() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -le "$deadline" ]; do
    if ! screen | grep -qE -- "$1"; then ok "$3"; return 0; fi
    sleep 0.5
  done
  bad "$3: /$1/ still on screen after $2 s"; screen | sed 's/^/    | /'
  return 1
}

# absent PATTERN DESCRIPTION: the screen does not match now.
absent() {
  if screen | grep -qE -- "$1"; then bad "$2: /$1/ is on screen"; screen | sed 's/^/    | /'
  else ok "$2"; fi
}

# start [ENV...]: the grader in a fresh 100x30 session; its exit status is printed after it.
# Each start gets a server of its own: reusing a socket races with the old server's exit.
start() {
  stop_servers
  RUNS=$((RUNS + 1)); SOCK=$TEST_TMP/tmux.$RUNS.sock
  tx new-session -d -s "$SESSION" -x 100 -y 30 \
    "env LD_LIBRARY_PATH='${LD_LIBRARY_PATH:-}' LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color EDITOR='$TEST_TMP/editor.sh' $* '$GRADER' --root '$COURSE' --no-sanitize --timeout ${TIMEOUT:-3}; echo \"GRADER-EXIT=\$?\"; sleep 60"
}

# ------------------------------------------------------------------ the course list
start
wait_for 'Progress' 10 "the course list comes up"
wait_for '01-first +First steps' 2 "lesson rows show id and title"
wait_for 'double_it +Double every element +not run' 2 "a task row shows name, title and outcome"
wait_for 'broken .*not run' 2 "every task is listed"
wait_for '03-bad/lesson.ini:[0-9]+' 2 "a malformed lesson.ini is reported with file and line"
wait_for '0 / 6 points' 2 "the progress line counts every task's points"
if nvidia-smi -L 2>/dev/null | grep -q GPU; then
  absent 'no GPU' "with a GPU, the first screen does not say there is none"
else
  wait_for '^ no GPU: ' 2 "without a GPU, the first screen says so and why"
fi
keys j k
wait_for 'Enter grade .* q quit' 2 "after a key, the key bar names the keys"

# "/" finds a task by name: typing "add" (an a, as in "all") grades nothing
keys / a d d
wait_for 'find: add_' 2 "/ opens the find prompt on the key bar"
wait_for '02-more/add_one +not graded yet' 2 "typing a task's name selects it"
keys Enter
sleep 0.5
absent 'queued|running|building' "typing a name after / started no grading"
keys g
wait_for '01-first/double_it +not graded yet' 2 "after Enter the keys move again"

# ------------------------------------------------------------------ grade, details
keys Enter
wait_for 'double_it +Double every element +passed +2/2 +3/3 +1.00' 20 \
  "Enter grades the task: passed, score, cases, speed ratio in its row"
wait_for '01-first/double_it: passed; on to 01-first/broken' 2 "a pass says so and names the next task"
wait_for '^ 01-first/broken +not graded yet' 2 "after a pass the cursor moves on to the next unfinished task"
wait_for '2 / 6 points +1 of 3 passed' 2 "the course progress moved"
keys k
wait_for '01-first/double_it +passed' 2 "the summary line describes the selected task"

# An edit after grading marks the result as stale; the same bytes again do not.
EXERCISE=$COURSE/exercises/01-first/double_it.cu
sleep 1.1
cp "$EXERCISE" "$TEST_TMP/double_it.orig"
printf 'int f(int i) { return i + i; }\n' > "$EXERCISE"
wait_for 'double_it .*passed \*' 4 "an edited exercise gets its result marked with *, no key needed"
wait_for 'edited since graded' 1 "and the summary says why"
cp "$TEST_TMP/double_it.orig" "$EXERCISE"
wait_gone 'passed \*' 4 "saving the graded content again clears the mark"

keys Right
wait_for 'passed +2 / 2 points' 3 "Right opens the details with the outcome"
wait_for 'big +speed +pass' 2 "every case is listed with its flag and verdict"
wait_for 'ratio 1.00 .*fast enough' 2 "the speed against the reference is shown"
wait_for 'yours +.*ms' 2 "the time bar of the exercise is drawn"
keys q
wait_for 'Progress' 2 "q goes back to the list"

# ------------------------------------------------------------------ build failure and its log
keys j Enter
wait_for 'broken .*build failed' 20 "a file that does not compile is 'build failed'"
keys d
wait_for 'broken.cu:3' 3 "the details show the compiler's file:line"
keys l
wait_for 'build log: 01-first/broken' 3 "l opens the build log pager"
wait_for 'error' 2 "the build log shows the error"
keys q q

# ------------------------------------------------------------------ notes and hints
keys n
wait_for 'notes: lessons/01-first/README.md' 3 "n opens the lesson's notes"
wait_for '^ First steps' 2 "the notes' heading is shown without its #"
wait_for 'has the reference solution check' 2 "bold text is shown without its **"
absent '\*\*|^ *#|\|---|!\[|```' "no Markdown marks are left on screen (**, #, |---, ![, fences)"
wait_for 'HTML: build/notes/01-first/index.html \(not built yet: make notes\)' 2 \
  "the notes say where their HTML page is and that it is not built"
wait_for '\[figure: Elements doubled .* lessons/01-first/figures/doubled.svg\]' 2 \
  "an image is its caption and path"
# The table's columns: every row's separators at the same columns, the size right-aligned.
table=$(screen | grep -E '│' | grep -vE '─')
cols=$(printf '%s\n' "$table" | while IFS= read -r l; do
  printf '%s\n' "$l" | awk -v FS='' '{ n = 0; for (i = 1; i <= NF; i++) if ($i == "│") printf "%d ", i; print "" }'
done | sort -u)
if [ "$(printf '%s\n' "$table" | wc -l)" -eq 3 ] && [ "$(printf '%s\n' "$cols" | wc -l)" -eq 1 ]; then
  ok "the table is drawn as aligned columns"
else bad "the table's columns do not line up"; printf '%s\n' "$table" | sed 's/^/    | /'; fi
if printf '%s\n' "$table" | grep -qE ' 17 │' && printf '%s\n' "$table" | grep -qE '100000 │'; then
  ok "a right-aligned column ends at one column"
else bad "the size column is not right-aligned"; fi
keys /
tx send-keys -t "$SESSION" -l 'reference'
wait_for '^ /reference_' 2 "/ opens the search prompt"
keys Enter
wait_for 'search: reference' 2 "Enter searches the notes"
absent 'not found' "the word in the notes is found"
keys /
tx send-keys -t "$SESSION" -l 'no-such-word'
keys Enter
wait_for 'not found: no-such-word' 2 "a missing word is reported"
keys q k s
wait_for 'no compute-sanitizer log' 2 "s without a sanitizer run says why"
keys h
wait_for 'Hint 1 of 2' 3 "h shows the first hint"
absent 'Hint 2 of 2' "the second hint stays hidden until asked for"
keys h
wait_for 'Hint 2 of 2' 3 "h again reveals the next hint"
wait_for 'Return 2 \* i' 2 "the hint's text is shown"
keys q

# ------------------------------------------------------------------ editor and reset
SHIPPED=$COURSE/exercises/01-first/double_it.cu
cat > "$TEST_TMP/editor.sh" <<'ED'
#!/bin/sh
printf '// edited in the editor\n' >> "$1"
ED
chmod +x "$TEST_TMP/editor.sh"
keys g
keys e
wait_for 'back from the editor' 5 "e runs the editor and comes back to the screen"
if grep -q 'edited in the editor' "$SHIPPED"; then ok "the editor got the exercise file"
else bad "the editor did not get $SHIPPED"; fi
wait_for 'Progress' 2 "the list is drawn again after the editor"
keys r
wait_for 'reset exercises/01-first/double_it.cu to the shipped version \(y/N\)\?' 3 \
  "r asks before resetting"
keys n
wait_for 'reset cancelled' 2 "n keeps the file"
if grep -q 'edited in the editor' "$SHIPPED" && ! ls "$SHIPPED".bak-* >/dev/null 2>&1; then
  ok "after n the file is as it was and no backup was made"
else bad "n changed the file or made a backup"; fi
keys r
keys y
wait_for 'shipped version back in double_it.cu; yours is double_it.cu.bak-[0-9]{8}-[0-9]{6}' 3 \
  "y resets and names the backup"
if git -C "$COURSE" diff --quiet -- exercises/01-first/double_it.cu; then
  ok "the exercise is the shipped version again"
else bad "the exercise is not the shipped version"; fi
if grep -q 'edited in the editor' "$SHIPPED".bak-*; then ok "the student's file is kept as the backup"
else bad "no backup holds the student's edit"; fi
keys r
wait_for 'exercises/01-first/double_it.cu is already the shipped version' 3 \
  "r on the shipped version says so, and asks nothing"
absent '\(y/N\)' "no question asked"
[ -z "$(git -C "$COURSE" status --porcelain --untracked-files=all -- exercises | grep -F '.bak-')" ] &&
  ok "git ignores the backup" || bad "the backup shows in git status"

# ------------------------------------------------------------------ help
keys '?'
wait_for 'Outcomes' 3 "? opens the help"
wait_for 'never graded' 2 "the help explains the outcome words"
keys q
wait_for 'Progress' 2 "any key leaves the help"

# ------------------------------------------------------------------ resize
tx resize-window -t "$SESSION" -x 40 -y 10
wait_for 'Terminal too small' 3 "a tiny terminal gets the 'too small' screen"
tx resize-window -t "$SESSION" -x 100 -y 30
wait_for 'double_it .*passed' 3 "back to full size the list is redrawn with its state"
tx resize-window -t "$SESSION" -x 64 -y 14
wait_for 'Progress' 3 "a narrow terminal still shows the list"
absent 'Speed' "a narrow list drops the speed column"
tx resize-window -t "$SESSION" -x 100 -y 30

# ------------------------------------------------------------------ watch mode
keys G Enter
wait_for 'add_one .*wrong' 20 "a wrong answer is 'wrong'"
keys Right
wait_for 'expected 0 got 1' 3 "the details show the first mismatch"
keys G
wait_for 'use: cub, thrust$' 2 "forbidden libraries by name, once each"
absent '3cub' "no mangled-name fragment is shown"
keys q w
wait_for '\[watch\]' 3 "w turns watch mode on"
printf 'int f(int i) { return 2 * i; }\n' > "$COURSE/exercises/02-more/add_one.cu.new"
mv "$COURSE/exercises/02-more/add_one.cu.new" "$COURSE/exercises/02-more/add_one.cu"
wait_for 'add_one .*passed' 20 "saving the exercise file regrades it in watch mode"
keys q
wait_for 'GRADER-EXIT=1' 5 "q quits, exit status 1 while a task is not passed"

# ------------------------------------------------------------------ progress kept, colors
start
wait_for 'double_it .*passed' 10 "a restart shows the saved progress"
wait_for 'add_one .*passed' 2 "including the task graded in watch mode"
if tx capture-pane -e -p -t "$SESSION" | grep -qE $'\e\\[[0-9;]*3[1-6]m'; then
  ok "colors by role on a color terminal"
else bad "no colored text on a color terminal"; fi
keys q
start NO_COLOR=1
wait_for 'double_it .*passed' 10 "starts with NO_COLOR set"
if tx capture-pane -e -p -t "$SESSION" | grep -qE $'\e\\[[0-9;]*3[0-7]m'; then
  bad "NO_COLOR set, yet colored text is drawn"
else ok "NO_COLOR honoured: attributes only"; fi
keys q
wait_for 'GRADER-EXIT=1' 5 "quits again"

# ------------------------------------------------------------------ a terminal that cannot
for term in dumb ''; do
  start TERM=$term
  wait_for '^score: ' 20 "TERM='$term': the plain-text report, as into a pipe"
  absent 'Progress|CUDA Lab grader' "TERM='$term': no screen is drawn"
  wait_for 'GRADER-EXIT=' 2 "TERM='$term': the grader ends by itself"
done

# ------------------------------------------------------------------ the grader's fixture course
# Every outcome the engine knows, graded from the TUI: each must show as its own word.
COURSE=$TEST_TMP/fixture
cp -r tests/grader/fixture "$COURSE"
stand_in_install "$COURSE"
# Its "too slow" task spins for about 3 s of CPU: a busy machine must not make it "timed out".
TIMEOUT=10
start
wait_for 'Fixture basics' 10 "the fixture course comes up"
wait_for '04-malformed/lesson.ini:[0-9]+' 2 "its malformed lesson.ini is reported with file and line"
keys a
wait_gone 'not run|queued|building|checking symbols|listing cases|running|verifying|timing|sanitizing' 90 \
  "a grades every task, the list following each step, until none is left"
for word in 'passed' 'wrong' 'too slow' 'build failed' 'crashed' 'timed out' 'CUDA error' 'skipped'; do
  wait_for "^ +[^ ] +[a-z]+ .* $word +" 1 "outcome '$word' has its own word in the list"
done
# Down the list to the first wrong task: its details show the first mismatch.
keys g
for _ in $(seq 1 20); do
  screen | tail -n 2 | grep -qE '^ [^ ]+ +wrong: ' && break
  keys j
done
keys Right
wait_for 'wrong +0 / [0-9.]+ points' 3 "the wrong task's details"
wait_for 'first mismatch' 2 "show its first mismatch"
keys q
for _ in $(seq 1 20); do
  screen | tail -n 2 | grep -qE '^ [^ ]+ +skipped' && break
  keys j
done
wait_for '^ 02-faults/skip +skipped: no (CUDA device|NVIDIA driver)' 2 "a skip's summary gives its reason"
absent 'SKIP:' "and does not repeat the skip as SKIP:"
# A skipped task keeps its points at stake: its row, its lesson's, the course's, its details.
wait_for '^ +[^ ] skip +skipped +-/1( |$)' 1 "a skipped task's row keeps its maximum (-/1)"
wait_for '^ 02-faults  Fixture faults +[0-9]+/8( |$)' 1 "its lesson's maximum does not shrink (/8)"
wait_for '[0-9]+ / 31 points .*, [0-9]+ skipped' 1 "the course's maximum does not shrink either"
absent '\([^)]*\(' "no nested parentheses on the course list"
keys Enter
wait_for '02-faults/skip: skipped' 20 "a skipped task graded again says so"
absent '\([^)]*\(' "and its line has no nested parentheses"
keys Right
wait_for 'skipped +- / 1 points' 2 "its details keep its maximum (- / 1 points)"
keys q
# At 70x14 the list scrolls: its markers sit in the last column, clear of the scores.
tx resize-window -t "$SESSION" -x 70 -y 14
keys g
wait_for '[0-9-]+/[0-9]+ ▼$' 3 "70x14: the 'more below' marker is beside a whole score"
keys G
wait_for '[0-9-]+/[0-9]+ ▲$' 3 "70x14: the 'more above' marker is beside a whole score"
tx resize-window -t "$SESSION" -x 100 -y 30
keys q
wait_for 'GRADER-EXIT=1' 5 "q quits the fixture course"

finish

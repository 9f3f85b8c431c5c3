#!/usr/bin/env bash
# Quitting is no error: tools/run-main.sh (what make run starts) exits 0 when the grader says
# "a task not passed" (1) or "every task skipped" (77), and keeps every other status; without
# a GPU, make check-lab exits 0 and does not call the course consistent, since its GPU half
# never ran (tools/check-lab.sh itself still says 77).
source "$(dirname "$0")/../lib.sh"

# run-main.sh in a layout of its own, beside a grader that exits with $FAKE_RC
fake="$TEST_TMP/course"
mkdir -p "$fake/tools" "$fake/build/grader"
cp "$ROOT/tools/run-main.sh" "$fake/tools/"
printf '#!/bin/sh\nexit "$FAKE_RC"\n' >"$fake/build/grader/grader"
chmod +x "$fake/build/grader/grader"
for pair in 0:0 1:0 77:0 2:2 130:130 3:3; do
  FAKE_RC=${pair%%:*} bash "$fake/tools/run-main.sh" </dev/null >/dev/null 2>&1
  rc=$?
  [ $rc -eq "${pair#*:}" ] && ok "run-main: the grader's ${pair%%:*} is make run's $rc" ||
    bad "run-main: the grader's ${pair%%:*} became $rc, expected ${pair#*:}"
done

# check-lab with no GPU to be seen (nvidia-smi that finds none)
stubs="$TEST_TMP/stubs"
mkdir -p "$stubs"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$stubs/nvidia-smi"
chmod +x "$stubs/nvidia-smi"
if [ -x "$ROOT/build/exercises/01-divergence/reduce_sum" ] && [ -x "$ROOT/build/solutions/01-divergence/reduce_sum" ]; then
  (cd "$ROOT" && PATH="$stubs:$PATH" bash tools/check-lab.sh 01-divergence/reduce_sum) >"$TEST_TMP/cl" 2>&1
  rc=$?
  [ $rc -eq 77 ] && ok "check-lab.sh without a GPU: exit 77" || bad "check-lab.sh without a GPU: exit $rc"
  grep -q 'consistent' "$TEST_TMP/cl" && bad "check-lab.sh calls the course consistent without its GPU half" ||
    ok "check-lab.sh does not call it consistent"
  expect_grep 'was not run \(no GPU\)' "$TEST_TMP/cl" "check-lab.sh says what was not run"
  arch=$(cut -d' ' -f1 "$ROOT/build/.arch" 2>/dev/null)
  if [ -n "$arch" ]; then
    (cd "$ROOT" && PATH="$stubs:$PATH" LAB_NO_INSTALL=1 make -s ARCH="$arch" check-lab) >"$TEST_TMP/mcl" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok "make check-lab without a GPU: exit 0" ||
      { bad "make check-lab without a GPU: exit $rc"; tail -n 3 "$TEST_TMP/mcl"; }
  fi
else
  bad "build/*/01-divergence/reduce_sum not built (make)"
fi

# make run on a built course: nothing of make's own before the course (no "Nothing to be done",
# no "is up to date"); with no terminal the grader prints its report and make exits 0. The
# course's own saved progress is the student's: GRADER_ARGS=--no-state keeps it untouched.
arch=$(cut -d' ' -f1 "$ROOT/build/.arch" 2>/dev/null)
if [ -n "$arch" ] && [ -x "$ROOT/build/grader/grader" ]; then
  state_before=$(cat "$ROOT/.grader/state.json" 2>/dev/null | sha256sum)
  # as a student types it in a shell, not as a sub-make of make test
  (cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$stubs:$PATH" LAB_NO_INSTALL=1 \
     make ARCH="$arch" run GRADER_ARGS=--no-state) </dev/null >"$TEST_TMP/run" 2>&1
  rc=$?
  [ "$(cat "$ROOT/.grader/state.json" 2>/dev/null | sha256sum)" = "$state_before" ] &&
    ok "make run GRADER_ARGS=--no-state: the course's saved progress untouched" ||
    bad "make run wrote the course's saved progress (.grader/state.json)"
  grep -E 'Nothing to be done|is up to date|^make(\[[0-9]+\])?: (Entering|Leaving)' "$TEST_TMP/run" &&
    bad "make run: make's own lines before the course (above)" ||
    ok "make run: no line of make's own before the course"
  [ $rc -eq 0 ] && ok "make run without a GPU, no terminal: exit 0" || bad "make run: exit $rc"
fi

# the deps step names each missing package once (md4c's two checks both wanted libmd4c-dev)
printf '#!/bin/sh\nexit 1\n' >"$stubs/cc-none"
chmod +x "$stubs/cc-none"
CC="$stubs/cc-none" LAB_NO_INSTALL=1 bash "$ROOT/tools/install-deps.sh" >"$TEST_TMP/deps" 2>&1
rc=$?
line=$(grep -m1 '^deps: missing' "$TEST_TMP/deps")
dups=$(echo "${line#deps: missing }" | sed 's/;.*//' | tr ' ' '\n' | sort | uniq -d)
[ $rc -eq 1 ] && [ -n "$line" ] && [ -z "$dups" ] &&
  ok "deps: every library missing, each package named once (exit 1)" ||
  bad "deps: exit $rc, twice: '$dups' in: $line"
finish

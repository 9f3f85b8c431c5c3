#!/usr/bin/env bash
# Every tools/*.sh answers --help and -h with a usage line and exit 0, and does nothing else:
# the commands a script could run (apt-get, make, nvcc, nvidia-smi, the demos...) are stubs
# here that record being called.
source "$(dirname "$0")/../lib.sh"

stubs="$TEST_TMP/stubs"
mkdir -p "$stubs"
for cmd in apt-get sudo make nvcc nvidia-smi gnuplot ncu nsys compute-sanitizer git gcc cc; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 0\n' "$cmd" "$TEST_TMP" >"$stubs/$cmd"
  chmod +x "$stubs/$cmd"
done
# Each script runs from a copy of tools/ in a tree of its own, so that whatever it writes
# lands there and nowhere else (other test groups write the course's build/ meanwhile).
tree="$TEST_TMP/tree"
mkdir -p "$tree/tools"
cp "$ROOT"/tools/*.sh "$tree/tools/"
tree_written() { find "$tree" -newer "$TEST_TMP/stubs" ! -type d -print 2>/dev/null | wc -l; }
n=0
for script in "$tree"/tools/*.sh; do
  name=tools/${script##*/}
  for flag in --help -h; do
    n=$((n + 1))
    rm -f "$TEST_TMP/called"
    before=$(tree_written)
    PATH="$stubs:$PATH" CUDA_HOME="$stubs" NCU="$stubs/ncu" SAN="$stubs/compute-sanitizer" \
      bash "$script" "$flag" >"$TEST_TMP/out" 2>&1
    rc=$?
    after=$(tree_written)
    if [ $rc -eq 0 ] && head -n 1 "$TEST_TMP/out" | grep -q "^usage: $name" && [ ! -e "$TEST_TMP/called" ] \
       && [ "$before" = "$after" ]; then
      ok "$name $flag: a usage line, exit 0, nothing run"
    else
      bad "$name $flag: exit $rc, ran: $(cat "$TEST_TMP/called" 2>/dev/null | tr '\n' ';')"
      sed 's/^/    /' "$TEST_TMP/out" | head -5
    fi
  done
done
[ $n -gt 0 ] || bad "no tools/*.sh found"

# make deps installs no system service: Slurm and munge are the class Slurm test's alone.
if grep -nE 'slurm|munge' "$ROOT/tools/install-deps.sh" | grep -v '^[0-9]*:#' >"$TEST_TMP/slurm"; then
  bad "tools/install-deps.sh installs Slurm or munge"; cat "$TEST_TMP/slurm"
else ok "tools/install-deps.sh never installs Slurm or munge"; fi

# make bench and make check-lab exit 77 when everything was skipped (no GPU)
fake="$TEST_TMP/fake"
mkdir -p "$fake/tools" "$fake/build/lessons/01-x" "$fake/exercises/01-x" "$fake/solutions/01-x" \
  "$fake/build/exercises/01-x" "$fake/build/solutions/01-x"
cp "$ROOT/tools/bench.sh" "$ROOT/tools/check-lab.sh" "$fake/tools/"
printf '#!/bin/sh\necho "SKIP: no CUDA device"\nexit 77\n' >"$fake/build/lessons/01-x/demo"
chmod +x "$fake/build/lessons/01-x/demo"
expect_exit 77 "bench.sh: every demo skipped" bash "$fake/tools/bench.sh" 01-x
printf '// TODO: write it\n' >"$fake/exercises/01-x/t.cu"
printf '// done\n' >"$fake/solutions/01-x/t.cu"
printf '#!/bin/sh\nexit 0\n' | tee "$fake/build/exercises/01-x/t" >"$fake/build/solutions/01-x/t"
chmod +x "$fake/build/exercises/01-x/t" "$fake/build/solutions/01-x/t"
printf '#!/bin/sh\nexit 1\n' >"$stubs/nvidia-smi"
PATH="$stubs:$PATH" expect_exit 77 "check-lab.sh: the GPU half skipped" bash "$fake/tools/check-lab.sh" 01-x/t

# the class bench: a kind it does not make, a scan that is no list of GPU counts: one line and
# exit 2, before it looks for a GPU or copies the course
for args in "--kinds ref,fast" "--kinds=" "--scan 1,,2"; do
  # shellcheck disable=SC2086 # the words of args are its arguments
  bash "$ROOT/tests/class/bench_class.sh" "$TEST_TMP/bench" 4 10 $args >"$TEST_TMP/bench.out" 2>&1
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/bench.out")" = 1 ] && grep -q "^bench_class: " "$TEST_TMP/bench.out" &&
    [ ! -e "$TEST_TMP/bench" ] && ok "bench_class.sh $args: one line, exit 2" ||
    bad "bench_class.sh $args: exit $rc: $(cat "$TEST_TMP/bench.out")"
done
finish

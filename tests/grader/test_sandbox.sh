#!/usr/bin/env bash
# The sandbox from the outside: where bwrap cannot make its namespaces, --batch grades with a
# one-line warning, grader class refuses unless --no-sandbox, doctor fails its sandbox check.
# Where it can, --batch grades without the warning and leaves no scratch directory behind.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
if "$GRADER" doctor --root "$course" | grep -q "^ok    sandbox"; then
  "$GRADER" --batch --root "$course" --seed 5 --no-sanitize pass --format json \
    --output "$TEST_TMP/ok.json" 2>"$TEST_TMP/ok.err"
  ! grep -q "unsandboxed" "$TEST_TMP/ok.err" && ok "sandboxed: no warning" || bad "a warning with a sandbox"
  py_json "sandboxed: the pass passes" 'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' \
    "$TEST_TMP/ok.json"
  w="$course/build/grader/01-basics/pass"
  [ ! -e "$w/scratch" ] && [ ! -e "$w/scratch2" ] && [ ! -e "$w/bin" ] && [ ! -e "$course/build/exercises" ] &&
    ok "sandboxed: no scratch and no exercise binary left" || bad "scratch or exercise binary left: $(ls "$w")"
  make -s -C "$course" build/exercises/01-basics/pass >/dev/null 2>&1
  "$GRADER" --batch --root "$course" --seed 5 --no-sanitize --no-build pass --format json \
    --output "$TEST_TMP/nb.json" 2>/dev/null
  py_json "sandboxed --no-build: the binary make left is graded" \
    'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' "$TEST_TMP/nb.json"
  "$GRADER" --batch --root "$course" --seed 5 --no-sanitize --no-sandbox pass --format json \
    --output "$TEST_TMP/ns.json" 2>"$TEST_TMP/ns.err"
  [ "$(grep -c "^grader: warning: --no-sandbox: student code runs unsandboxed" "$TEST_TMP/ns.err")" -eq 1 ] &&
    ok "--no-sandbox: one warning line" || bad "--no-sandbox: $(cat "$TEST_TMP/ns.err")"
  py_json "--no-sandbox: graded the same" 'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' \
    "$TEST_TMP/ns.json"
  mkdir -p "$TEST_TMP/nsclass/alice/exercises/01-basics"
  cp "$course/solutions/01-basics/pass.cu" "$TEST_TMP/nsclass/alice/exercises/01-basics/"
  "$GRADER" class "$TEST_TMP/nsclass" --course "$course" --no-sandbox --no-sanitize \
    --work "$TEST_TMP/nswork" >"$TEST_TMP/nsclass.out" 2>&1
  expect_grep "^grader class: warning: --no-sandbox: student code runs unsandboxed" \
    "$TEST_TMP/nsclass.out" "class --no-sandbox: the same meaning, the same warning"

  # What one run of student code leaves for the next. The binary: a graded run that could
  # replace it would choose what the sanitizers, a second look and ncu execute after it (it
  # answers wrong here when it could). The dump: the sanitizers' runs of the same code go on
  # while the verifier reads it (one that could reach it empties it and fails).
  attack_src() { # WHICH: replace_binary or reach_dump
    echo "#define ATTACK $1"
    cat <<'C'
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "protocol.h"
C
    c_dump_arg
    cat <<'C'

/* 1 when its own binary could be replaced. */
static int replace_binary(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 0;
    self[n] = 0;
    if (unlink(self) != 0)
        return 0;
    FILE *f = fopen(self, "w");
    if (f) {
        fputs("#!/bin/sh\nexit 0\n", f);
        fclose(f);
        chmod(self, 0755);
    }
    return 1;
}

/* Under a tool (a --dump not named "dump"): the graded run's dump, beside its own or in the
 * scratch next door. Found: emptied, and the run fails. */
static int reach_dump(void)
{
    const char *dump = dump_arg();
    if (!dump || strcmp(basename(strdup(dump)), "dump") == 0)
        return 0;
    char *dir = dirname(strdup(dump)), path[8192];
    const char *beside[] = {"%s/dump", "%s/../scratch/dump"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, beside[k], dir);
        DIR *d = opendir(path);
        if (!d)
            continue;
        for (struct dirent *e; (e = readdir(d));)
            if (e->d_name[0] != '.') {
                char file[8448];
                snprintf(file, sizeof file, "%s/%s", path, e->d_name);
                truncate(file, 0);
            }
        closedir(d);
        _exit(3);
    }
    return 0;
}

double task_compute(long i, uint64_t seed)
{
    static int first = 1, wrong;
    if (first) {
        first = 0;
        wrong = ATTACK();
    }
    return protocol_expected(i, seed) + wrong;
}
C
  }
  for attack in replace_binary reach_dump; do
    attack_src $attack >"$course/exercises/01-basics/pass.cu"
    PATH="$FAKE_SANITIZER_DIR:$PATH" "$GRADER" --batch --root "$course" --seed 5 --no-objcheck pass \
      --format json --output "$TEST_TMP/$attack.json" 2>/dev/null
    py_json "student code cannot $attack (graded, sanitizers clean)" '
t = d["tasks"][0]
assert t["outcome"] == "passed", (t["outcome"], t["reason"], t["sanitizers"])
assert {s["status"] for s in t["sanitizers"]} == {"clean"}, t["sanitizers"]
' "$TEST_TMP/$attack.json"
  done
  [ ! -e "$w/scratch" ] && [ ! -e "$w/scratch2" ] && [ ! -e "$w/bin" ] &&
    ok "with the sanitizers: no scratch of either kind and no binary left" ||
    bad "left after grading with the sanitizers: $(ls "$w")"
  cp "$ROOT/tests/grader/fixture/exercises/01-basics/pass.cu" "$course/exercises/01-basics/pass.cu"
else
  echo "note: no sandbox here; only the fallback is checked"
fi

# Code that runs before main (a constructor: only possible with --no-objcheck) and ends the
# program there has passed no GPU gate: the verifier decides it (no dump: wrong), never a
# "grader error" as for a harness of the grader's own that skipped the gate.
cat >"$course/exercises/01-basics/pass.cu" <<'C'
/* Ends the program before main, reporting success. */
#include <unistd.h>
#include "protocol.h"

__attribute__((constructor)) static void early(void) { _exit(0); }

double task_compute(long i, uint64_t seed)
{
    return protocol_expected(i, seed);
}
C
"$GRADER" --batch --root "$course" --seed 5 --no-sanitize --no-objcheck pass --format json \
  --output "$TEST_TMP/early.json" 2>/dev/null
py_json "an exit before main, unchecked: wrong, not a grader error" \
  'assert d["tasks"][0]["outcome"] == "wrong", d["tasks"][0]' "$TEST_TMP/early.json"
"$GRADER" --batch --root "$course" --seed 5 --no-sanitize pass --format json \
  --output "$TEST_TMP/early2.json" 2>/dev/null
py_json "an exit before main, checked: rejected" \
  'assert d["tasks"][0]["outcome"] == "rejected", d["tasks"][0]' "$TEST_TMP/early2.json"
cp "$ROOT/tests/grader/fixture/exercises/01-basics/pass.cu" "$course/exercises/01-basics/pass.cu"

# A bwrap that cannot make namespaces, first on PATH.
mkdir -p "$TEST_TMP/bin"
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$TEST_TMP/bin/bwrap"
chmod +x "$TEST_TMP/bin/bwrap"
export PATH="$TEST_TMP/bin:$PATH"

"$GRADER" --batch --root "$course" --seed 5 --no-sanitize pass --format json \
  --output "$TEST_TMP/fb.json" 2>"$TEST_TMP/fb.err"
[ "$(grep -c "unsandboxed" "$TEST_TMP/fb.err")" -eq 1 ] &&
  ok "no namespaces: one warning line" || bad "no warning line: $(cat "$TEST_TMP/fb.err")"
expect_grep "No permissions to create new namespace" "$TEST_TMP/fb.err" "the warning says why"
py_json "no namespaces: graded anyway" 'assert d["tasks"][0]["outcome"] == "passed", d["tasks"][0]' \
  "$TEST_TMP/fb.json"

mkdir -p "$TEST_TMP/class/alice"
expect_exit 1 "class refuses without a sandbox" "$GRADER" class "$TEST_TMP/class" --course "$course"
expect_grep "refusing to grade.*--no-sandbox" "$TEST_TMP/out" "the refusal names --no-sandbox"
"$GRADER" class "$TEST_TMP/class" --course "$course" --no-sandbox --no-sanitize \
  --work "$TEST_TMP/work" >"$TEST_TMP/out" 2>&1
! grep -q "refusing" "$TEST_TMP/out" && ok "--no-sandbox grades anyway" || bad "--no-sandbox refused"
"$GRADER" doctor --root "$course" >"$TEST_TMP/doc" 2>&1
expect_grep "^FAIL  sandbox .*unsandboxed" "$TEST_TMP/doc" "doctor fails its sandbox check"
finish

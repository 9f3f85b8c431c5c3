#!/usr/bin/env bash
# Every demo's command line, without a GPU: --help lists every version with its description,
# --list gives one line per version in the one format all demos share, a version the demo does
# not have is one error line and exit 2, and a version it has runs (exit 0 on a GPU) or skips
# in one SKIP line (exit 77 without one). The version list cannot drift: --list, --help, the
# versions named in demo.cu's opening comment and the version functions' _vN suffixes must all
# name the same versions. On a GPU it checks how the versions end, never a time: it shares the
# GPU with the other groups that do so.
# test-group: gpu-shared
source "$(dirname "$0")/../lib.sh"

have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then have_gpu=1; fi

sources=(lessons/*/demo.cu)
lessons=$(ls -d lessons/*/ | wc -l)
[ "${#sources[@]}" -eq "$lessons" ] && ok "every one of the $lessons lessons has a demo" \
  || bad "${#sources[@]} demos for $lessons lessons"

# sorted, one per line: the ids in --list
list_ids() { cut -f1 "$1" | sort -n; }

# The ids of the versions in --help's list: the lines between "versions" and "options:".
help_ids() { awk '/^versions/ { on = 1; next } /^options:/ { on = 0 } on { print $1 }' "$1" | sort -n; }

# The ids named in the opening comment ("version N:"), up to the first #include.
comment_ids() {
  awk '/^#include/ { exit } { if (match($0, /version [0-9]+:/)) print substr($0, RSTART + 8, RLENGTH - 9) }' \
    "$1" | sort -n
}

# The N of every version function, name_vN(void *arg), in the lesson's demo sources: demo.cu
# and the files it includes from kernels/ or versions/.
function_ids() {
  local dir=$1
  grep -ohE '_v[0-9]+\(void \*arg\)' "$dir/demo.cu" $(ls "$dir"/kernels/*.cuh "$dir"/versions/*.cuh 2>/dev/null) |
    sed -E 's/_v([0-9]+).*/\1/' | sort -nu
}

check_list() { # demo lesson
  local demo=$1 L=$2 out=$TEST_TMP/$2.list
  "$demo" --list >"$out" 2>"$out.err"; local rc=$?
  [ "$rc" -eq 0 ] && [ ! -s "$out.err" ] && ok "$L --list: exit 0, nothing on stderr" \
    || bad "$L --list: exit $rc, stderr: $(head -c 200 "$out.err")"
  if awk -F'\t' 'NF != 3 || $1 !~ /^[0-9]+$/ || $2 !~ /^[^[:space:]]+$/ || $3 == "" { bad = 1 }
                 END { exit bad || NR == 0 }' "$out"; then
    ok "$L --list: $(wc -l <"$out") lines of id<TAB>name<TAB>description"
  else
    bad "$L --list: a line is not id<TAB>name<TAB>description"; sed 's/^/    /' "$out"
  fi
  if awk -F'\t' 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { exit bad }' "$out"; then
    ok "$L --list: ids count up by one"
  else
    bad "$L --list: ids are not consecutive"
  fi
}

check_help() { # demo lesson
  local demo=$1 L=$2 list=$TEST_TMP/$2.list out=$TEST_TMP/$2.help
  "$demo" --help >"$out" 2>&1; local rc=$?
  [ "$rc" -eq 0 ] && ok "$L --help: exit 0" || bad "$L --help: exit $rc"
  if [ "$(help_ids "$out")" = "$(list_ids "$list")" ]; then
    ok "$L --help lists the same $(wc -l <"$list") versions as --list"
  else
    bad "$L --help lists versions $(help_ids "$out" | tr '\n' ' ')but --list $(list_ids "$list" | tr '\n' ' ')"
  fi
  # every version's line in --help: its id, name and description, as --list gives them
  local id name desc missing=0
  while IFS=$'\t' read -r id name desc; do
    awk -v id="$id" -v name="$name" -v desc="$desc" '
      /^versions/ { on = 1; next } /^options:/ { on = 0 }
      on && $1 == id && $2 == name && index($0, "  " desc) == length($0) - length(desc) - 1 { found = 1 }
      END { exit !found }' "$out" || { missing=1; bad "$L --help: no line '$id $name $desc'"; }
  done <"$list"
  [ "$missing" -eq 0 ] && ok "$L --help: every version with its name and description"
}

check_sources() { # lesson
  local L=$1 list=$TEST_TMP/$1.list
  if [ "$(comment_ids "lessons/$L/demo.cu")" = "$(list_ids "$list")" ]; then
    ok "$L: the opening comment of demo.cu names the versions --list gives"
  else
    bad "$L: demo.cu's comment names versions $(comment_ids "lessons/$L/demo.cu" | tr '\n' ' ')but --list $(list_ids "$list" | tr '\n' ' ')"
  fi
  if [ "$(function_ids "lessons/$L")" = "$(list_ids "$list")" ]; then
    ok "$L: a version function name_vN(void *arg) for every version, and none other"
  else
    bad "$L: version functions _v$(function_ids "lessons/$L" | tr '\n' ' ')but versions $(list_ids "$list" | tr '\n' ' ')"
  fi
}

check_bad_version() { # demo lesson
  local demo=$1 L=$2 last
  last=$(list_ids "$TEST_TMP/$L.list" | tail -n 1)
  for v in $((last + 1)) 999; do
    "$demo" "$v" >"$TEST_TMP/bad.out" 2>"$TEST_TMP/bad.err"; local rc=$?
    if [ "$rc" -eq 2 ] && [ "$(wc -l <"$TEST_TMP/bad.err")" -eq 1 ] && [ ! -s "$TEST_TMP/bad.out" ] &&
       grep -q "version $v" "$TEST_TMP/bad.err"; then
      ok "$L $v: exit 2, one error line: $(cat "$TEST_TMP/bad.err")"
    else
      bad "$L $v: exit $rc, stderr $(wc -l <"$TEST_TMP/bad.err") lines, stdout $(wc -c <"$TEST_TMP/bad.out") bytes"
      sed 's/^/    /' "$TEST_TMP/bad.err" | head -n 5
    fi
  done
}

check_good_version() { # demo lesson
  local demo=$1 L=$2 first
  first=$(list_ids "$TEST_TMP/$L.list" | head -n 1)
  "$demo" "$first" --quick --reps 1 --warmup 0 >"$TEST_TMP/good.out" 2>"$TEST_TMP/good.err"
  local rc=$?
  if [ "$have_gpu" -eq 1 ]; then
    [ "$rc" -eq 0 ] && ok "$L $first --quick: exit 0 on this GPU" \
      || { bad "$L $first --quick: exit $rc on a GPU"; tail -n 10 "$TEST_TMP/good.err" | sed 's/^/    /'; }
  elif [ "$rc" -eq 77 ] && [ "$(wc -l <"$TEST_TMP/good.out")" -eq 1 ] &&
       grep -q '^SKIP' "$TEST_TMP/good.out" && [ ! -s "$TEST_TMP/good.err" ]; then
    ok "$L $first: no GPU here, exit 77, one line: $(cat "$TEST_TMP/good.out")"
  else
    bad "$L $first without a GPU: exit $rc (expected 77 and one SKIP line)"
    sed 's/^/    /' "$TEST_TMP/good.out" "$TEST_TMP/good.err" | head -n 5
  fi
}

for src in "${sources[@]}"; do
  L=$(basename "$(dirname "$src")")
  demo=build/lessons/$L/demo
  if [ ! -x "$demo" ]; then bad "$demo missing (make $demo)"; continue; fi
  check_list "$demo" "$L"
  check_help "$demo" "$L"
  check_sources "$L"
  check_bad_version "$demo" "$L"
  check_good_version "$demo" "$L"
done
finish

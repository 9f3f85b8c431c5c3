#!/usr/bin/env bash
# The project's test runner (make test): every unit-test binary, then every test script
# tests/<area>/test_*.sh. Each test group exits 0 (pass), 77 (skip: it printed one SKIP line
# saying why) or anything else (fail). Logs go to build/tests/logs/; a failing group's log
# tail is shown. Closing line: "N passed, N failed, N skipped".
#   tests/run.sh [PATTERN...]   only groups whose name contains one of the PATTERNs
set -u
cd "$(dirname "$0")/.."
logs=build/tests/logs
mkdir -p "$logs"
pass=0 fail=0 skip=0 failed=()
filters=("$@")

run_group() { # name command...
  local name=$1; shift
  if [ ${#filters[@]} -gt 0 ]; then
    local f hit=0
    for f in "${filters[@]}"; do [[ "$name" == *"$f"* ]] && hit=1; done
    [ $hit -eq 1 ] || return 0
  fi
  local log="$logs/${name//\//_}.log" t0=$SECONDS rc
  "$@" >"$log" 2>&1 </dev/null
  rc=$?
  case $rc in
    0)  pass=$((pass + 1)); printf 'PASS  %-40s %4ds\n' "$name" $((SECONDS - t0)) ;;
    77) skip=$((skip + 1))
        printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 '^SKIP' "$log" | sed 's/^SKIP:\{0,1\} *//')" ;;
    *)  fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-40s (exit %d, log %s)\n' "$name" "$rc" "$log"
        tail -n 25 "$log" | sed 's/^/      | /' ;;
  esac
}

for bin in build/tests/unit/test_*; do
  [ -x "$bin" ] && run_group "unit/${bin##*/}" "$bin"
done
for script in tests/*/test_*.sh; do
  [ -f "$script" ] || continue
  area=${script#tests/}; run_group "${area%.sh}" bash "$script"
done

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

# Sourced by the grader's test scripts (after tests/lib.sh): the grader binary and a fresh copy
# of the fixture course, so that no test writes into the source tree.
GRADER="$ROOT/build/grader/grader"
FAKE_SANITIZER_DIR="$ROOT/tests/grader/fake-sanitizer"
if [ ! -x "$GRADER" ]; then
  echo "FAIL - $GRADER is not built (make build/grader/grader)"; exit 1
fi

# fixture_copy DIR [LESSON...]: the fixture course in DIR, only the lessons named (default all).
fixture_copy() {
  local dir=$1; shift
  mkdir -p "$dir"
  cp -r "$ROOT/tests/grader/fixture/." "$dir/"
  rm -rf "$dir/build" "$dir/.grader"
  stand_in_install "$dir"
  if [ $# -gt 0 ]; then
    local l keep
    for l in "$dir"/lessons/*/; do
      l=$(basename "$l"); keep=0
      for k in "$@"; do [ "$l" = "$k" ] && keep=1; done
      [ $keep = 1 ] || rm -rf "$dir/lessons/$l" "$dir/exercises/$l" "$dir/solutions/$l"
    done
  fi
}

# c_dump_arg: the C source of dump_arg(), for an exercise that must tell its runs apart: the
# --dump its program was given (NULL when none), read from /proc/self/cmdline. The graded run
# dumps to .../dump, compute-sanitizer's runs to .../dump1, dump2, ... (grade_san.c). The
# exercise includes <stdio.h> and <string.h>.
c_dump_arg() {
  cat <<'C'
static const char *dump_arg(void)
{
    static char args[8192];
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t len = f ? fread(args, 1, sizeof args - 1, f) : 0;
    if (f)
        fclose(f);
    for (size_t at = 0; at < len; at += strlen(args + at) + 1)
        if (strcmp(args + at, "--dump") == 0 && at + 7 < len)
            return args + at + 7;
    return NULL;
}
C
}

# c_first_run: the C source of first_run(mark), for a program that must tell its first run in a
# grading from the later ones: 1 when the file mark (in the run's working directory, the
# grading's scratch) was not there yet, and it is then made; 0 once it is. The program
# includes <stdio.h>.
c_first_run() {
  cat <<'C'
static int first_run(const char *mark)
{
    FILE *f = fopen(mark, "r");
    if (f) {
        fclose(f);
        return 0;
    }
    if ((f = fopen(mark, "w")))
        fclose(f);
    return 1;
}
C
}

# usage_error DESCRIPTION ARGS...: the grader with these arguments exits 2 with one line on
# stderr and nothing on stdout
usage_error() { # description args...
  local what=$1; shift
  "$GRADER" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; local rc=$?
  local lines; lines=$(wc -l <"$TEST_TMP/err")
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$TEST_TMP/out" ]; then ok "$what: exit 2, one line"
  else bad "$what: exit $rc, $lines stderr lines"; cat "$TEST_TMP/err"; fi
}

# tree_sum DIR: one checksum over every file's path and content
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum); }

# py_json DESCRIPTION PYTHON-CODE FILE: the code's assertions see the parsed JSON file as `d`
py_json() {
  local what=$1 code=$2 file=$3
  command -v python3 >/dev/null || { bad "$what: python3 is needed to parse the report"; return; }
  if python3 - "$file" <<PY >"$TEST_TMP/py.out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
$code
PY
  then ok "$what"; else bad "$what"; sed 's/^/    /' "$TEST_TMP/py.out" | tail -n 12; fi
}

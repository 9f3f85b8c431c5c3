#!/usr/bin/env bash
# make bench: every lesson's demo, its tables to build/bench/*.csv and the terminal, then the
# lesson's figures (lessons/L/plot.gp -> build/bench/*.svg) where gnuplot is installed.
#   tools/bench.sh LESSON...
set -u
case ${1:-} in -h|--help) echo 'usage: tools/bench.sh LESSON...   run each lesson'\''s demo, tables and figures to build/bench/ (exit 77: every demo skipped)'; exit 0 ;; esac
cd "$(dirname "$0")/.."
out=build/bench
mkdir -p "$out"
rm -f "$out"/*_goals.csv   # goals are appended per run: start each bench afresh
total=$# i=0 failed=0 ran=0 skipped=0
for lesson in "$@"; do
  i=$((i + 1))
  demo=build/lessons/$lesson/demo
  [ -x "$demo" ] || continue
  ran=$((ran + 1))
  printf '\n[%d/%d] %s\n' "$i" "$total" "$lesson"
  "$demo" --csv "$out" 2>&1 | tee "$out/$lesson.log"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) ;;
    77) echo "SKIP $lesson: no usable GPU"; skipped=$((skipped + 1)); continue ;;
    *) echo "FAIL $lesson: demo exited $rc"; failed=$((failed + 1)); continue ;;
  esac
  if [ -f "lessons/$lesson/plot.gp" ]; then
    if command -v gnuplot >/dev/null; then
      gnuplot -e "csvdir='$out'; outdir='$out'" "lessons/$lesson/plot.gp" && echo "figures: $(ls "$out"/"$lesson"*.svg 2>/dev/null | tr '\n' ' ')"
    else
      echo "no gnuplot: figures of $lesson not drawn (apt-get install gnuplot-nox)"
    fi
  fi
done
echo "tables in $out/"
[ "$failed" -eq 0 ] || exit 1
# nothing measured: every demo skipped (no usable GPU)
[ "$ran" -gt 0 ] && [ "$skipped" -eq "$ran" ] && exit 77
exit 0

#!/usr/bin/env bash
# Draws the measured figures of the lecture notes, lessons/L/figures/h200_*.svg, from a directory
# of demo tables (the CSVs of `make bench`, or `demo --csv DIR`): every lessons/L/plot.gp runs with
# csvdir=DIR, outdir=lessons/L/figures and figures=1. A plot.gp draws what its tables allow and
# skips a figure whose table is missing; gnuplot's own messages say which.
#   tools/notes/figures.sh CSVDIR [OUTROOT]    (OUTROOT: write OUTROOT/L/ instead of lessons/L/figures)
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: tools/notes/figures.sh CSVDIR [OUTROOT]" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "figures: gnuplot not installed (apt-get install gnuplot-nox)" >&2; exit 2; }
csv=$1 root=${2:-}
status=0
for gp in lessons/*/plot.gp; do
  l=${gp#lessons/}; l=${l%/plot.gp}
  dir=${root:+$root/$l}; dir=${dir:-lessons/$l/figures}
  mkdir -p "$dir"
  gnuplot -e "csvdir='$csv'; outdir='$dir'; figures=1" "$gp" || { echo "figures: $gp failed" >&2; status=1; }
done
exit $status

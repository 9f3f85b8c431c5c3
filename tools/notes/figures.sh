#!/usr/bin/env bash
# Draws the measured figures of the lecture notes, lessons/L/figures/h200_*.svg, from a directory
# of demo tables (the CSVs of `make bench`, or `demo --csv DIR`): every lessons/L/plot.gp runs with
# csvdir=DIR, outdir=lessons/L/figures and figures=1. A plot.gp draws what its tables allow and
# skips a figure whose table is missing; gnuplot's own messages say which. Each figure's <title> is
# the alt text the notes give it.
#   tools/notes/figures.sh CSVDIR [OUTROOT]    (OUTROOT: write OUTROOT/L/ instead of lessons/L/figures)
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: tools/notes/figures.sh CSVDIR [OUTROOT]" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "figures: gnuplot not installed (apt-get install gnuplot-nox)" >&2; exit 2; }
csv=$1 root=${2:-}

# titles L DIR: each figure's <title> is what the notes say of it, the alt text of the image
# that shows it in lessons/L/README.md (gnuplot writes "Gnuplot" there, and "gnuplot_plot_N"
# over every curve, which a browser shows as its tooltip).
titles() {
  local svg alt
  for svg in "$2"/h200_*.svg; do
    [ -f "$svg" ] || continue
    alt=$(sed -n "s|.*!\[\([^]]*\)\](figures/${svg##*/}).*|\1|p" "lessons/$1/README.md" | head -n 1)
    alt=$(printf '%s' "${alt:-${svg##*/}}" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/[|\\&]/\\&/g')
    sed -i "s|<title>Gnuplot</title>|<title>$alt</title>|; s|<title>gnuplot_plot_[0-9]*</title>||" "$svg"
  done
}
status=0
for gp in lessons/*/plot.gp; do
  l=${gp#lessons/}; l=${l%/plot.gp}
  dir=${root:+$root/$l}; dir=${dir:-lessons/$l/figures}
  mkdir -p "$dir"
  gnuplot -e "csvdir='$csv'; outdir='$dir'; figures=1" "$gp" || { echo "figures: $gp failed" >&2; status=1; }
  titles "$l" "$dir"
done
exit $status

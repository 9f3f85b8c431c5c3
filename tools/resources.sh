#!/usr/bin/env bash
# make resources: registers, shared memory, spills and stack of every kernel, as ptxas
# reports them (the old lectures' "look at the PTX", today). Output also saved to FILE.
#   tools/resources.sh "NVCC FLAGS..." FILE
set -u
case ${1:-} in -h|--help) echo 'usage: tools/resources.sh "NVCC FLAGS..." FILE   registers, shared memory, stack and spills of every kernel'; exit 0 ;; esac
cd "$(dirname "$0")/.."
nvcc=$1 out=$2
mkdir -p "$(dirname "$out")"
: > "$out"
printf '%-48s %-40s %5s %7s %6s %6s\n' file kernel regs smem stack spills | tee "$out"
# Every CUDA source of the course by its files, not git's index: a copy from a tarball has none.
for f in $(find common lessons exercises solutions -type f -name '*.cu' 2>/dev/null | LC_ALL=C sort); do
  inc=-I$(dirname "$f" | sed 's|^exercises/|lessons/|; s|^solutions/|lessons/|')
  # ptxas -v: per kernel, "Function properties for K", "N bytes stack frame, S bytes spill
  # stores, L bytes spill loads", "Used R registers, ... B bytes smem".
  $nvcc $inc -Xptxas -v -c "$f" -o /dev/null 2>&1 | awk -v file="$f" '
    /Function properties for/ { k = $NF }
    /bytes stack frame/ { stack = $1; spills = $5 + $9 }
    /Used [0-9]+ registers/ {
      smem = 0
      for (i = 1; i <= NF; i++) if ($(i+1) == "bytes" && $(i+2) ~ /^smem/) smem = $i
      for (i = 1; i <= NF; i++) if ($(i+1) == "registers,") regs = $i
      print file, k, regs, smem, stack, spills
    }' | while read -r file k regs smem stack spills; do
      printf '%-48s %-40s %5s %7s %6s %6s\n' "$file" "$(echo "$k" | c++filt | cut -d'(' -f1 | cut -c1-40)" "$regs" "$smem" "$stack" "$spills"
    done | tee -a "$out"
done
echo "saved in $out"

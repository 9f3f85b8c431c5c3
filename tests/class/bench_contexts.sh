#!/usr/bin/env bash
# How many CUDA programs this machine starts a second, on one GPU and on several: P programs
# (tests/class/contexts.cu: a context, 256 MiB, one kernel) started at once, spread over K GPUs
# (CUDA_VISIBLE_DEVICES = i mod K), for each K of 1, 2, 4... up to the machine's GPUs, and for
# each number Q of hardware work queues a context opens (CUDA_DEVICE_MAX_CONNECTIONS: 1, as
# the grader opens them but for a task that asks for more, and CUDA's default of 8).
#   tests/class/bench_contexts.sh OUTDIR [P,P,...=1,8,32,64] [Q,Q,...=1,8]
#   BENCH_CONTEXTS_UNDER="compute-sanitizer --tool memcheck" ...  each program started under
#   that command (words split on spaces), as a grading starts its sanitizers
# Writes OUTDIR/contexts.txt and contexts.csv: queues, GPUs, programs, wall, programs a second, the
# median and slowest time to a context, and the CPU's busy share over the wall. A grading
# starts about 55 such programs a student (graded runs, compute-sanitizer, the verifier of a
# large product, references): where programs a second stay flat as K grows, the driver
# creates contexts one at a time for the whole machine; set against the programs a second a
# class reaches (bench_class.sh), this says whether they bound its rate (grader/README.md,
# "Grading a class"). Needs a GPU.
set -u
cd "$(dirname "$0")/../.."
case ${1:-} in -h|--help|'') echo "usage: tests/class/bench_contexts.sh OUTDIR [P,P,...=1,8,32,64] [Q,Q,...=1,8]"; [ -n "${1:-}" ]; exit $? ;; esac
out=$1 counts=${2:-1,8,32,64} queues=${3:-1,8} under=${BENCH_CONTEXTS_UNDER:-}
[[ $counts =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
  { echo "bench_contexts: program counts are numbers, e.g. 1,8,32 (got '$counts')" >&2; exit 2; }
[[ $queues =~ ^([1-9]|[12][0-9]|3[0-2])(,([1-9]|[12][0-9]|3[0-2]))*$ ]] ||
  { echo "bench_contexts: work queues are numbers from 1 to 32, e.g. 1,8 (got '$queues')" >&2; exit 2; }
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no GPU (nvidia-smi finds none)"; exit 77; fi
command -v nvcc >/dev/null || { echo "bench_contexts: nvcc not found" >&2; exit 2; }
n_gpus=$(nvidia-smi -L | grep -c '^GPU ')
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/contexts.XXXXXX")
trap 'rm -rf "$work"' EXIT
arch=$(tools/detect-arch.sh)
nvcc -O2 -arch="$arch" -o "$work/contexts" tests/class/contexts.cu 2>"$out/build.log" ||
  { echo "bench_contexts: the program did not build (see $out/build.log)" >&2; exit 1; }

cpu_ticks() { awk '/^cpu /{ print $2 + $3 + $4 + $6 + $7 + $8, $5 }' /proc/stat; } # busy idle
echo "queues,gpus,programs,wall_s,programs_per_s,context_median_s,context_max_s,cpu_busy_pct" >"$out/contexts.csv"
for q in ${queues//,/ }; do
for ((k = 1; k <= n_gpus; k *= 2)); do
  for p in ${counts//,/ }; do
    rm -f "$work"/out.*
    read -r b0 i0 < <(cpu_ticks)
    t0=$(date +%s.%N)
    for ((i = 0; i < p; i++)); do
      CUDA_VISIBLE_DEVICES=$((i % k)) CUDA_DEVICE_MAX_CONNECTIONS=$q $under "$work/contexts" >"$work/out.$i" 2>&1 &
    done
    wait
    t1=$(date +%s.%N)
    read -r b1 i1 < <(cpu_ticks)
    cat "$work"/out.* >"$work/all"
    python3 - "$work/all" "$k" "$p" "$t0" "$t1" "$((b1 - b0))" "$((i1 - i0))" "$q" >>"$out/contexts.csv" <<'PY' ||
import statistics, sys
path, k, p, t0, t1, busy, idle, q = sys.argv[1:]
rows = []
for line in open(path):
    f = line.split()
    if len(f) == 3 and not line.startswith("="):  # a tool's own lines start with '='
        rows.append(float(f[0]))
if len(rows) != int(p):
    sys.exit(f"{int(p) - len(rows)} of {p} programs failed: " + open(path).read()[:300])
wall = float(t1) - float(t0)
cpu = 100 * int(busy) / max(1, int(busy) + int(idle))
print(f"{q},{k},{p},{wall:.3f},{int(p) / wall:.2f},{statistics.median(rows):.3f},{max(rows):.3f},{cpu:.0f}")
PY
      { echo "bench_contexts: $q queue(s), $k GPU(s), $p programs: failed" >&2; exit 1; }
  done
done
done
python3 - "$out/contexts.csv" <<'PY' | tee "$out/contexts.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{'queues':>6} {'GPUs':>4} {'programs':>8} {'wall s':>7} {'a second':>8} {'to context, median / max s':>27} {'CPU busy':>8}")
for r in rows:
    print(f"{r['queues']:>6} {r['gpus']:>4} {r['programs']:>8} {float(r['wall_s']):>7.2f} {float(r['programs_per_s']):>8.2f} "
          f"{float(r['context_median_s']):>13.3f} / {float(r['context_max_s']):<11.3f} {r['cpu_busy_pct']:>7}%")
most = max(int(r["programs"]) for r in rows)
for q in sorted({int(r["queues"]) for r in rows}):
    at = {int(r["gpus"]): float(r["programs_per_s"]) for r in rows
          if int(r["programs"]) == most and int(r["queues"]) == q}
    if 1 in at and len(at) > 1:
        print(f"{most} programs at once, {q} queue(s): " +
              ", ".join(f"{k} GPU(s) {v / at[1]:.2f}x" for k, v in sorted(at.items())) +
              " the programs a second of one GPU")
PY

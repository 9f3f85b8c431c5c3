#!/usr/bin/env bash
# Students graded per minute on this machine's GPU(s) for the real course: a class of N
# students with mixed submissions, graded by `grader class` for at most LIMIT seconds
# (interrupted runs lose nothing; the rate counts the students finished).
#   tests/class/bench_class.sh OUTDIR [N=20] [LIMIT=600] [grader class options...] [--scan 1,2,4]
#                              [--kinds ref,slow,...]
# The class, in this order and repeated up to N, each repetition turned by one more place (the
# second is shipped, slow, ..., ref), so that the students that begin on each GPU of a class of
# several are of several kinds (unturned, on two GPUs every "shipped" began on one and every
# "hang" on the other):
#   ref        a copy of the reference solutions                      every task passed
#   shipped    the shipped exercises                                  wrong, build failed...
#   slow       the solutions, 03's kernel launched 10 times per call  matmul_naive too slow
#   crash      the solutions, 03's host wrapper writes through NULL   matmul_naive crashed
#   hang       the solutions, 03's kernel spins on a volatile load     matmul_naive timed out
#   sanitizer  the solutions, 03's kernel reads past the end of A     matmul_naive sanitizer
# Writes OUTDIR/summary.txt (the rate over the wall and the steady rate: students finished a
# minute while every place was taken, the first round and the emptying last one left out; the
# first round's rate: as many finishes as places, over the time to the last of them;
# seconds per student, seconds per grading step summed over the class, the programs that
# held a GPU and how many a second, the CPU's busy share, the GPU's time held and waited for,
# its time line: held alone, by a first
# look, only shared, idle; the time no run had its turn, split by whether a timed run was on
# its way to its gate; each GPU's busy and idle share; the programs waiting in the GPU's
# driver, whose API lock is one for the host, sampled), OUTDIR/class.csv (one row: the same
# figures), OUTDIR/steps.csv (one row per student and step), OUTDIR/gpus.csv (one row per GPU),
# OUTDIR/outcomes.csv (every task of every student) and OUTDIR/gpu-trace.txt (every hold of a
# GPU; gpu-trace.txt.gpus: the GPU of each task), plus the gradebook, the reference times
# (reference.csv) and the class log. A task whose outcome is not its student's kind's
# (matmul_naive as above, every other task passed) is named in the summary, and the script
# exits 1. Needs a GPU.
#
# --scan 1,2,4 grades the same class once with each number K of GPUs (GPUs 0..K-1; each run
# with a scratch directory of its own, so that no run takes another's reference times), for at
# most LIMIT seconds each. A K above the machine's GPUs is left out, so one command serves a
# machine of 2 GPUs and one of 4. Each run's files go to OUTDIR/gpus-K/ as above; then
# OUTDIR/scaling.txt and scaling.csv: GPUs, places, students, wall, students a minute (over the
# wall, steady, and in the first round), the programs waiting in the driver, speed-up over the
# first run (of the steady rates where every run has one, else of the first rounds' where every
# run has one, else of the walls'), each GPU's busy and idle share; and every task of every
# student graded in two runs compared (the script exits 1 when an outcome differs).
# --scan-keep: a K whose run OUTDIR/gpus-K/ already holds (its class.csv) is not graded again
# but joins the table, so that a scan longer than one sitting of a machine is run in parts
# (--scan 1, then --scan 1,2 --scan-keep, ...: the class is the same each time).
# --kinds: the kinds the class is made of, in that order (default: all six above). A class of
# one kind (--kinds ref) gives every GPU the same work, so that a scan measures what the GPUs
# share (the host, its driver) apart from how a mixed class falls to them.
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: tests/class/bench_class.sh OUTDIR [N] [LIMIT] [grader class options...] [--scan 1,2,4 [--scan-keep]] [--kinds ref,...]" >&2; exit 2; }
out=$1 n=${2:-20} limit=${3:-600}
shift $(( $# < 3 ? $# : 3 ))
scan="" scanning=0 keep=0 opts=() kinds_arg=ref,shipped,slow,crash,hang,sanitizer
while [ $# -gt 0 ]; do
  case $1 in
    --scan-keep) keep=1; shift ;;
    --scan) scanning=1 scan=${2:-}; shift $(( $# < 2 ? 1 : 2 )) ;;
    --scan=*) scanning=1 scan=${1#--scan=}; shift ;;
    --kinds) kinds_arg=${2:-}; shift $(( $# < 2 ? 1 : 2 )) ;;
    --kinds=*) kinds_arg=${1#--kinds=}; shift ;;
    *) opts+=("$1"); shift ;;
  esac
done
[ $keep -eq 0 ] || [ $scanning -eq 1 ] ||
  { echo "bench_class: --scan-keep goes with --scan" >&2; exit 2; }
IFS=, read -r -a kinds <<<"$kinds_arg"
[ ${#kinds[@]} -gt 0 ] || { echo "bench_class: --kinds takes a list, e.g. --kinds ref,slow" >&2; exit 2; }
for k in "${kinds[@]}"; do
  case $k in ref|shipped|slow|crash|hang|sanitizer) ;;
    *) echo "bench_class: --kinds: no kind '$k' (ref, shipped, slow, crash, hang, sanitizer)" >&2; exit 2 ;;
  esac
done
if [ $scanning -eq 1 ]; then
  [[ $scan =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
    { echo "bench_class: --scan takes GPU counts, e.g. --scan 1,2,4 (got '$scan')" >&2; exit 2; }
  for o in ${opts[@]+"${opts[@]}"}; do
    case $o in --gpus|--gpus=*|--work|--work=*)
      echo "bench_class: --scan chooses the GPUs and the scratch directories (drop $o)" >&2; exit 2 ;;
    esac
  done
fi
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no GPU (nvidia-smi finds none)"; exit 77; fi
n_gpus=$(nvidia-smi -L | grep -c '^GPU ')
work=$(mktemp -d "${TMPDIR:-/tmp}/classbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
course=$work/course class=$work/class
mkdir -p "$course" "$class" "$out"
out=$(cd "$out" && pwd)
cp -r Makefile common tools lessons solutions exercises "$course"/
start=$SECONDS
# the whole course, as an instructor's checkout has it: the students' builds link against the
# pristine build's objects (the reference solutions alone are not enough)
make -C "$course" -k -j"$(nproc)" all >"$out/course-build.log" 2>&1
echo "course build: $((SECONDS - start)) s" | tee "$out/summary.txt"

# mutate KIND FILE: the one-task change that makes a student of that kind (03's solution).
mutate() {
  local f=$2
  case $1 in
    slow) sed -i 's/^\( *\)matmul_naive_kernel<<<\(.*\)$/\1for (int slow_rep = 0; slow_rep < 10; slow_rep++)\n\1    matmul_naive_kernel<<<\2/' "$f" ;;
    crash) sed -i 's/^\( *\)matmul_naive(dA, dB, dC, M, N, K);/\1*(volatile int *)16 = 1;\n&/' "$f" ;;
    # a load from memory each turn: an empty loop on a local, even a volatile one, is removed
    # by ptxas, and the "hang" passed
    hang) sed -i 's/^\( *\)float sum = 0.0f;/\1while (((volatile const float *)A)[0] == ((volatile const float *)A)[0]) {\n\1}\n&/' "$f" ;;
    # past the end of A only where that stays inside A's first 2 MiB page (M*K under 4096):
    # the run never faults, memcheck always sees it. Past the 64 MiB speed case's A, the read
    # sometimes faulted in the run itself (a cuda_error, not the sanitizer's finding).
    sanitizer) sed -i 's/^\( *\)C\[(size_t)row \* N + col\] = sum;/\1if ((size_t)M * K < 4096)\n\1    sum += 0.0f * A[(size_t)M * K + col];\n&/' "$f" ;;
  esac
}
for i in $(seq -w 1 "$n"); do
  k=${kinds[$(( (10#$i - 1 + (10#$i - 1) / ${#kinds[@]}) % ${#kinds[@]} ))]}
  d=$class/s$i-$k
  mkdir -p "$d"
  if [ "$k" = shipped ]; then cp -r "$course/exercises" "$d/exercises"; continue; fi
  cp -r "$course/solutions" "$d/exercises"
  f=$d/exercises/03-naive-matmul/matmul_naive.cu
  before=$(sha256sum <"$f")
  mutate "$k" "$f"
  [ "$k" = ref ] || [ "$(sha256sum <"$f")" != "$before" ] ||
    { echo "FAIL: the $k mutation did not apply to $f"; exit 1; }
done


# The figures of one run, from every student's results.json: figures.py CLASS SECS OUT OPTIONS
cat >"$work/figures.py" <<'FIGURES'
import csv, glob, json, os, sys
cls, secs, out, opts = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
began, places, class_size = float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
cpu_busy = float(sys.argv[8])
# driver.py's "<mean> <most> <samples>": the programs waiting in the GPU's driver
drv = (sys.argv[9].split() if len(sys.argv) > 9 else []) + ["nan", "nan", "0"]
driver_mean, driver_most, driver_samples = float(drv[0]), drv[1], int(drv[2])
steps, gpu, done, rows, odd, outcomes, finished = {}, {}, 0, [], [], [], []
expected = {"ref": "passed", "slow": "too_slow", "crash": "crashed", "hang": "timed_out",
            "sanitizer": "sanitizer"}
for path in sorted(glob.glob(os.path.join(cls, "*", "results.json"))):
    student = os.path.basename(os.path.dirname(path))
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        continue
    tasks = d.get("tasks") or d.get("tests") or []
    done += 1
    finished.append(os.stat(path).st_mtime - began)
    kind = student.split("-", 1)[-1]
    for t in tasks:
        # results.json keeps the engine's record in each test's extra_data.result
        extra = t.get("extra_data") or {}
        res = extra.get("result") or t
        tid = extra.get("task") or res.get("id", t.get("name", ""))
        for k, v in (res.get("steps") or {}).items():
            steps[k] = steps.get(k, 0.0) + (v or 0.0)
            rows.append((student, tid, k, v))
        for k, v in (res.get("gpu") or {}).items():
            gpu[k] = gpu.get(k, 0.0) + (v or 0.0)
        # each kind changes matmul_naive alone: its other tasks are the solutions, and pass
        got = extra.get("outcome", res.get("outcome"))
        outcomes.append((student, tid, got))
        if kind in expected:
            want = expected[kind] if tid == "03-naive-matmul/matmul_naive" else "passed"
            if got != want:
                why = " ".join(str(res.get("reason") or "").split())[:300]
                odd.append(f"{student}: {tid} {got}, expected {want}" + (f" ({why})" if why else ""))
rate = done / secs * 60 if secs > 0 else 0
print(f"students graded: {done} in {secs:.0f} s: {rate:.2f} students a minute, "
      f"{secs / done if done else float('nan'):.1f} s a student")
# The steady rate: students finished a minute while every place was taken, from the end of
# the first round (the places-th finish: the course's references and the first builds are
# behind) to the last finish, or, where the whole class was graded, to the finish that
# freed the last student's place (after it, places stand empty). At least 3 finishes, and half
# as many as the places, after the first round: two finishes 26 s apart once read as 4.68
# students a minute on two GPUs whose wall rate was 2.51.
finished.sort()
last = len(finished) if done < class_size else class_size - places
steady, window = float("nan"), ""
if places >= 1 and last - places >= max(3, (places + 1) // 2):
    a, b = finished[places - 1], finished[last - 1]
    if b > a:
        steady = (last - places) / (b - a) * 60
        window = f"{last - places} finishes from {a:.0f} s to {b:.0f} s"
print(f"steady rate: {steady:.2f} students a minute ({window or 'too few finishes after the first round of ' + str(places)})")
# The first round's rate: as many finishes as places, over the time to the last of them. Where
# the wall holds one round and part of the next, this rate is the round's and the wall's is the
# round's and a share of the next, which falls to the limit's cut: on an H200 x2 host, 8
# students in 252 s on two GPUs and 7 in 250 s on one read as 1.13x, the first rounds (eight in
# 171 s, four in 124 s) as 1.45x.
first_round = float("nan")
if places >= 1 and len(finished) >= places and finished[places - 1] > 0:
    first_round = places / finished[places - 1] * 60
    print(f"first round: {places} finishes in {finished[places - 1]:.0f} s: "
          f"{first_round:.2f} students a minute")
else:
    print(f"first round: fewer than {places} finishes")
for k, v in sorted(steps.items(), key=lambda kv: -kv[1]):
    print(f"  step {k:10s} {v:8.1f} s summed over the class ({v / done if done else 0:.1f} s a student)")
# Timed runs hold the GPU alone, so their sum over the class is the part of the wall the GPU
# was held for timing; shared holds (compute-sanitizer) overlap one another.
per = lambda v: v / done if done else 0
print(f"  GPU held for timed runs {gpu.get('timed_s', 0):.1f} s ({per(gpu.get('timed_s', 0)):.1f} s a "
      f"student, {gpu.get('timed_s', 0) / secs * 100 if secs > 0 else 0:.0f} % of the wall); shared "
      f"{gpu.get('shared_s', 0):.1f} s summed over overlapping runs ({per(gpu.get('shared_s', 0)):.1f} s a "
      f"student); waited for it {gpu.get('wait_s', 0):.1f} s ({per(gpu.get('wait_s', 0)):.1f} s a student)")
# The GPU's time line, from every run the gradings traced (grade.c: gpu_trace): held alone
# (the reference, a second look, ncu), held by a first look (untimed runs may share it), held
# only shared (compute-sanitizer, timed runs before their gate and after their timed calls),
# or held by nobody, over the span from the first hold to the last.
marks = []
try:
    for line in open(os.path.join(out, "gpu-trace.txt")):
        f = line.split()
        if len(f) != 9:
            continue
        turn = None if f[6] == "-" else (float(f[6]), float(f[7]))
        marks.append((f[2], f[3], float(f[5]), turn, float(f[8]), f[0], f[1]))
except OSError:
    pass
line_cols = {}
if marks:
    t0, t1 = min(m[2] for m in marks), max(m[4] for m in marks)
    ev = []  # (time, which count: 0 shared, 1 timed, 2 alone, +1 / -1)
    for prog, use, held, turn, end, *_ in marks:
        if turn is None:
            ev += [(held, 0, 1), (end, 0, -1)]
            continue
        k = 2 if use == "alone" else 1
        ev += [(held, 0, 1), (turn[0], 0, -1), (turn[0], k, 1), (turn[1], k, -1),
               (turn[1], 0, 1), (end, 0, -1)]
    ev.sort()
    count, span, last = [0, 0, 0], [0.0] * 4, t0
    for t, k, d in ev:
        state = 0 if count[2] else 1 if count[1] else 2 if count[0] else 3
        span[state] += t - last
        last = t
        count[k] += d
    wall = t1 - t0
    names = ["alone", "timed", "shared_only", "idle"]
    line_cols = {f"line_{n}_s": v for n, v in zip(names, span)}
    pct = lambda v: v / wall * 100 if wall > 0 else 0
    print(f"  GPU time line over {wall:.0f} s: held alone {span[0]:.1f} s ({pct(span[0]):.0f} %), "
          f"by a first look {span[1]:.1f} s ({pct(span[1]):.0f} %), only shared {span[2]:.1f} s "
          f"({pct(span[2]):.0f} %), idle {span[3]:.1f} s ({pct(span[3]):.0f} %)")
    # Each hold is a program started (a graded run, a reference, compute-sanitizer, ncu, a
    # verifier or probe: "untimed"); each such CUDA program creates its context, and the
    # driver creates them one at a time for the whole machine (bench_contexts.sh)
    kinds = {}
    for prog, use, *_ in marks:
        kind = prog if prog in ("compute-sanitizer", "ncu") else "untimed" if use == "shared" else use
        kinds[kind] = kinds.get(kind, 0) + 1
    line_cols["programs"] = len(marks)
    print(f"  programs that held the GPU: {len(marks)}, {len(marks) / wall if wall > 0 else 0:.2f} a second ("
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
          + f"); the CPU {cpu_busy:.0f} % busy over the run")
    if driver_samples:
        print(f"  programs waiting in the GPU's driver (its API lock, one for the host): "
              f"{driver_mean:.2f} at a time on average, at most {driver_most} "
              f"({driver_samples} samples)")
    by = {}
    for prog, use, held, turn, end, *_ in marks:
        who = prog if prog in ("compute-sanitizer", "ncu") else "timed runs"
        if turn is not None:
            by[f"{use}: {who}"] = by.get(f"{use}: {who}", 0.0) + turn[1] - turn[0]
        outside = end - held - (turn[1] - turn[0] if turn else 0)
        by[f"shared: {who}"] = by.get(f"shared: {who}", 0.0) + outside
    print("  GPU held, summed over holds: " +
          ", ".join(f"{k} {v:.1f} s" for k, v in sorted(by.items(), key=lambda kv: -kv[1])))
    # When no run had its turn: was a run with a turn to come on its way to its gate (its
    # start: process, sandbox, device), or had none started? (merged intervals, clipped to
    # the free time between consecutive turns)
    turns = sorted((m[3][0], m[3][1], m[2]) for m in marks if m[3] is not None)
    free = starting = 0.0
    reach = turns[0][1] if turns else 0.0
    for k in range(1, len(turns)):
        a, b = reach, turns[k][0]
        reach = max(reach, turns[k][1])
        if b <= a:
            continue
        free += b - a
        spans = sorted((max(a, h), min(b, t0_)) for t0_, _, h in turns if h < b and t0_ > a)
        last = a
        for x, y in spans:
            x = max(x, last)
            if y > x:
                starting += y - x
                last = y
    line_cols["turn_free_s"] = free
    line_cols["turn_free_starting_s"] = starting
    print(f"  turn free {free:.1f} s: a timed run on its way to its gate {starting:.1f} s, "
          f"none started {free - starting:.1f} s")
    # Each GPU's share of the span from the class's first hold to its last: busy (some run held
    # it), its turn held (a timed run or one alone), idle. Which GPU a run used comes from the
    # class's map of tasks to GPUs (<trace>.gpus: pid, task, GPU); without it, "?".
    gpu_of, tasks_on = {}, {}
    try:
        for line in open(os.path.join(out, "gpu-trace.txt.gpus")):
            f = line.split()
            if len(f) == 3:
                gpu_of[(f[0], f[1])] = f[2]
                tasks_on[f[2]] = tasks_on.get(f[2], 0) + 1
    except OSError:
        pass
    def union(iv):
        total, reach = 0.0, None
        for a, b in sorted(iv):
            if reach is None or a > reach:
                total, reach = total + b - a, b
            elif b > reach:
                total, reach = total + b - reach, b
        return total
    held, turns = {}, {}
    for prog, use, h, turn, end, pid, task in marks:
        g = gpu_of.get((pid, task), "?")
        held.setdefault(g, []).append((h, end))
        if turn is not None:
            turns.setdefault(g, []).append(turn)
    with open(os.path.join(out, "gpus.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["gpu", "tasks", "span_s", "busy_s", "turn_s", "idle_s"])
        for g in sorted(held, key=lambda x: (len(x), x)):
            busy, turn = union(held[g]), union(turns.get(g, []))
            w.writerow([g, tasks_on.get(g, 0), f"{wall:.2f}", f"{busy:.2f}", f"{turn:.2f}",
                        f"{wall - busy:.2f}"])
            print(f"  GPU {g}: {tasks_on.get(g, 0)} tasks, busy {pct(busy):.0f} % of {wall:.0f} s "
                  f"(its turn held {pct(turn):.0f} %), idle {pct(wall - busy):.0f} %")
with open(os.path.join(out, "class.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["options", "students", "seconds", "students_per_minute", "steady_per_minute",
                "first_round_per_minute", "places", "seconds_per_student", "driver_waiting"]
               + [f"step_{k}_s" for k in sorted(steps)] + [f"gpu_{k}" for k in sorted(gpu)]
               + [f"gpu_{k}" for k in line_cols])
    w.writerow([opts, done, f"{secs:.1f}", f"{rate:.3f}", f"{steady:.3f}", f"{first_round:.3f}",
                places,
                f"{secs / done if done else 0:.2f}", f"{driver_mean:.2f}"]
               + [f"{steps[k]:.2f}" for k in sorted(steps)] + [f"{gpu[k]:.2f}" for k in sorted(gpu)]
               + [f"{v:.2f}" for v in line_cols.values()])
with open(os.path.join(out, "steps.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["student", "task", "step", "seconds"])
    w.writerows(rows)
with open(os.path.join(out, "outcomes.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["student", "task", "outcome"])
    w.writerows(sorted(outcomes))
for line in odd:
    print(f"NOT AS BUILT: {line}")
sys.exit(1 if odd else 0)
FIGURES

cpu_ticks() { awk '/^cpu /{ print $2 + $3 + $4 + $6 + $7 + $8, $5 }' /proc/stat; } # busy idle

# The programs waiting in the GPU's kernel driver, sampled four times a second until SIGTERM:
# driver.py OUT writes "<mean> <most> <samples>" to OUT. A process counts while it sleeps
# uninterruptibly (state D) in one of the driver's functions (its wchan: the resource
# manager's lock, os_acquire_*, or the unified-memory module's, uvm_*). The driver's API lock
# is one for the whole host, whatever GPU a call is for: on an H200 x4 host the class's
# programs waited there 1.5 at a time on one GPU, 3.3 on two, 8.7 on four.
cat >"$work/driver.py" <<'DRIVER'
import os, signal, sys, time
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
counts = []
while not stop:
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            if state != "D":
                continue
            with open(f"/proc/{pid}/wchan") as f:
                w = f.read().strip()
        except (OSError, IndexError):
            continue
        n += w.startswith(("os_acquire_", "uvm_", "nv_", "_nv", "rm_"))
    counts.append(n)
    time.sleep(0.25)
with open(sys.argv[1], "w") as f:
    f.write(f"{sum(counts) / len(counts) if counts else 0:.2f} {max(counts, default=0)} {len(counts)}\n")
DRIVER

# places_on K: students graded at once on K GPUs (--jobs for each GPU; by default grader
# class's, a quarter of each GPU's share of the cores, 1 to 4)
# from the options: --jobs, and the GPUs --gpus names (grader class takes one without it)
jobs="" gpus_given=1
for ((i = 0; i < ${#opts[@]}; i++)); do
  case ${opts[i]} in
    --jobs) jobs=${opts[i + 1]:-} ;;
    --jobs=*) jobs=${opts[i]#--jobs=} ;;
    --gpus) gpus_given=$(( $(tr -cd , <<<"${opts[i + 1]:-0}" | wc -c) + 1 )) ;;
    --gpus=*) gpus_given=$(( $(tr -cd , <<<"${opts[i]#--gpus=}" | wc -c) + 1 )) ;;
  esac
done
places_on() {
  local per=$jobs cores
  if [ -z "$per" ]; then
    cores=$(($(nproc) / $1))
    per=$((cores >= 16 ? 4 : cores >= 4 ? cores / 4 : 1))
  fi
  echo $((per * $1))
}

# One grading of the whole class into DIR: run_class DIR K [grader class options...] (K: the
# GPUs it grades on); 0, or 1 when a task is not as its student's kind says.
run_class() {
  local dir=$1 k=$2; shift 2
  [ -n "$dir" ] && [ -n "$class" ] || return 2
  mkdir -p "$dir"
  rm -f "$class"/*/results.json "$class/gradebook.csv" "$class/junit.xml" "$class/reference.csv" \
    "$dir/gpu-trace.txt" "$dir/gpu-trace.txt.gpus"
  local t0=$SECONDS rc secs began b0 i0 b1 i1
  read -r b0 i0 < <(cpu_ticks)
  began=$(date +%s.%N)
  python3 "$work/driver.py" "$dir/driver.txt" &
  local sampler=$!
  GRADER_GPU_TRACE=$dir/gpu-trace.txt timeout -k 30 -s INT "$limit" build/grader/grader class \
    "$class" --course "$course" "$@" >"$dir/class.log" 2>&1
  rc=$?
  secs=$((SECONDS - t0))
  read -r b1 i1 < <(cpu_ticks)
  kill -TERM $sampler 2>/dev/null
  wait $sampler 2>/dev/null
  echo "grader class $* : exit $rc, $secs s" | tee -a "$dir/summary.txt"
  cp "$class/gradebook.csv" "$class/junit.xml" "$class/reference.csv" "$dir/" 2>/dev/null
  python3 "$work/figures.py" "$class" "$secs" "$dir" "$*" "$began" "$(places_on "$k")" "$n" \
    "$(( 100 * (b1 - b0) / ((b1 - b0) + (i1 - i0) > 0 ? (b1 - b0) + (i1 - i0) : 1) ))" \
    "$(cat "$dir/driver.txt" 2>/dev/null)" | tee -a "$dir/summary.txt"
  local figures_rc=${PIPESTATUS[0]}
  grep -E "^\[" "$dir/class.log" | tail -n "$n" >>"$dir/summary.txt"
  return "$figures_rc"
}

if [ $scanning -eq 0 ]; then
  run_class "$out" "$gpus_given" ${opts[@]+"${opts[@]}"}
  exit $?
fi

# A scaling figure wants a steady state: at least twice as many students as grade at once on
# the most GPUs scanned (--jobs for each GPU; by default grader class's, a quarter of each
# GPU's share of the cores, 1 to 4). A class smaller than that measures one or two rounds, and
# its wall is the slowest student's: 6 students on two GPUs' 8 places all started at once.
most=0
for k in ${scan//,/ }; do [ "$k" -le "$n_gpus" ] && [ "$k" -gt "$most" ] && most=$k; done
if [ "$most" -gt 0 ]; then
  places=$(places_on "$most")
  [ "$n" -ge $((2 * places)) ] ||
    echo "note: $n students for $places places at once on $most GPU(s): under twice the places, the rate measures the class's last round, not a steady state (use $((2 * places)) or more)" |
    tee -a "$out/summary.txt"
fi
rc=0 runs=()
for k in ${scan//,/ }; do
  if [ "$k" -gt "$n_gpus" ]; then
    echo "--scan: $k GPUs left out: this machine has $n_gpus" | tee -a "$out/summary.txt"
    continue
  fi
  if [ $keep -eq 1 ] && [ -s "$out/gpus-$k/class.csv" ]; then
    echo "== $k GPU(s): kept from an earlier run ($out/gpus-$k)" | tee -a "$out/summary.txt"
    runs+=("$out/gpus-$k")
    continue
  fi
  echo "== $k GPU(s)" | tee -a "$out/summary.txt"
  run_class "$out/gpus-$k" "$k" --gpus "$(seq -s, 0 $((k - 1)))" --work "$work/work-$k" \
    ${opts[@]+"${opts[@]}"} || rc=1
  runs+=("$out/gpus-$k")
  rm -rf "$work/work-$k"
done
[ ${#runs[@]} -gt 0 ] || { echo "--scan: no GPU count fits this machine"; exit 2; }
python3 - "$out" "${runs[@]}" <<'SCALING' | tee "$out/scaling.txt"
import csv, os, sys
out, runs = sys.argv[1], sys.argv[2:]
rows = []
for d in runs:
    k = int(os.path.basename(d).split("-")[1])
    try:
        c = next(csv.DictReader(open(os.path.join(d, "class.csv"), newline="")))
        o = {(r["student"], r["task"]): r["outcome"]
             for r in csv.DictReader(open(os.path.join(d, "outcomes.csv"), newline=""))}
    except (OSError, StopIteration):
        print(f"{k} GPU(s): no figures (see {d}/class.log)")
        continue
    try:
        g = list(csv.DictReader(open(os.path.join(d, "gpus.csv"), newline="")))
    except OSError:
        g = []
    rows.append((k, c, g, o))
if not rows:
    sys.exit(1)
# the speed-up is the steady rates' where every run has one (the first rounds and the
# last, with places empty, left out: bench_class's figures.py), else the first rounds' where
# every run has one (a short bench: figures.py), else the walls'
def has(key):
    return all(float(c.get(key) or "nan") > 0 for _, c, _, _ in rows)
for key, what in (("steady_per_minute", "the steady rates"),
                  ("first_round_per_minute", "the first rounds' rates (too few finishes for a "
                   "steady rate)"),
                  ("students_per_minute", "the rates over the whole wall (too few finishes for "
                   "a steady rate or a first round)")):
    if has(key) or key == "students_per_minute":
        break
base_k, base_rate = rows[0][0], float(rows[0][1][key])
targets = {2: 1.8, 4: 3.4}  # the rate on K GPUs over the rate on one
print(f"speed-up of {what}")
print(f"{'GPUs':>4} {'places':>6} {'students':>8} {'wall s':>7} {'per min':>8} {'steady':>7} "
      f"{'1st rnd':>7} {'driver':>6} {'speed-up':>8}  each GPU: busy / idle % of the span (tasks)")
table = []
for k, c, g, o in rows:
    rate = float(c[key])
    up = rate / base_rate if base_rate > 0 else 0
    per = "  ".join(f"{r['gpu']}: {100 * float(r['busy_s']) / float(r['span_s']):.0f}/"
                    f"{100 * float(r['idle_s']) / float(r['span_s']):.0f} ({r['tasks']})"
                    for r in g if float(r["span_s"]) > 0)
    note = ""
    if k in targets and base_k == 1:
        note = f"   target {targets[k]}x: {'met' if up >= targets[k] else 'not met'}"
    print(f"{k:>4} {c['places']:>6} {c['students']:>8} {float(c['seconds']):>7.0f} "
          f"{float(c['students_per_minute']):>8.2f} {float(c['steady_per_minute']):>7.2f} "
          f"{float(c.get('first_round_per_minute') or 'nan'):>7.2f} "
          f"{float(c.get('driver_waiting') or 'nan'):>6.2f} {up:>7.2f}x  {per}{note}")
    table.append([k, c["places"], c["students"], c["seconds"], c["students_per_minute"],
                  c["steady_per_minute"], c.get("first_round_per_minute") or "nan",
                  c.get("driver_waiting") or "nan", f"{up:.3f}",
                  " ".join(f"{r['gpu']}:{r['busy_s']}:{r['idle_s']}:{r['tasks']}" for r in g)])
# every task of every student graded in two runs: the same outcome in both
differ = 0
first = rows[0][3]
for k, _, _, o in rows[1:]:
    both = sorted(set(first) & set(o))
    diff = [(s, t, first[s, t], o[s, t]) for s, t in both if first[s, t] != o[s, t]]
    only = len({s for s, _ in set(first) ^ set(o)})
    for s, t, a, b in diff:
        print(f"OUTCOME DIFFERS: {s} {t}: {a} on {base_k} GPU(s), {b} on {k}")
    differ += len(diff)
    print(f"outcomes, {k} GPU(s) against {base_k}: {len(both)} tasks compared, {len(diff)} differ"
          + (f"; {only} students graded in one of the two runs only" if only else ""))
with open(os.path.join(out, "scaling.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["gpus", "places", "students", "seconds", "students_per_minute",
                "steady_per_minute", "first_round_per_minute", "driver_waiting", "speedup",
                "gpu:busy_s:idle_s:tasks"])
    w.writerows(table)
sys.exit(1 if differ else 0)
SCALING
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
exit "$rc"

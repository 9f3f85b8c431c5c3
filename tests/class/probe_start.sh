#!/usr/bin/env bash
# How long a task program takes from its start to the grader's gate (its device open), on an
# idle GPU, beside three loops of compute-sanitizer, and beside one busy loop per CPU: the
# start of every timed run in a class pays it. Medians of 7 starts each, reduce_sum's small
# case, outside the sandbox. Needs a GPU and a built course (make all).
#   tests/class/probe_start.sh
set -u
cd "$(dirname "$0")/../.."
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no GPU (nvidia-smi finds none)"; exit 77; fi
san=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
python3 - "$san" <<'PY'
import os, socket, statistics, subprocess, sys, time
san = sys.argv[1]
prog = "build/solutions/01-divergence/reduce_sum"

def to_gate():
    a, b = socket.socketpair()
    t0 = time.monotonic()
    p = subprocess.Popen([prog, "--seed", "5", "--case", "n1", "--no-check"], pass_fds=(b.fileno(),),
                         env=dict(os.environ, LAB_GATE_FD=str(b.fileno())),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b.close()
    a.recv(1)
    t = time.monotonic() - t0
    a.send(b"G" + bytes(8))  # go, and the key: 0 asks for no commitment (lab_protocol.h)
    a.close()  # no picks after done: the program picks for itself
    p.wait()
    return t

def series(label, loops):
    bg = [subprocess.Popen(["bash", "-c", f"while :; do {cmd}; done"], start_new_session=True)
          for cmd in loops]
    time.sleep(3 if loops else 0)
    v = [to_gate() for _ in range(7)]
    for p in bg:
        os.killpg(p.pid, 9)
    time.sleep(1 if loops else 0)
    print(f"{label:30s} start to gate: median {statistics.median(v):.3f} s, "
          f"min {min(v):.3f}, max {max(v):.3f}", flush=True)

san_loop = (f"{san} --tool memcheck build/solutions/06-atomics/histogram --seed 5 "
            "--case 4099-skewed --reps 1 --warmup 0 >/dev/null 2>&1")
series("idle", [])
series("beside 3 sanitizer loops", [san_loop] * 3)
series(f"beside {os.cpu_count()} busy CPU loops", [":"] * os.cpu_count())
series("idle again", [])
PY

#!/usr/bin/env bash
# tests/run.sh itself, on trees of its own.
# - Three groups: one passes, one skips with its reason, one hangs. The hang is stopped at
#   TEST_GROUP_TIMEOUT with its processes and reported as one FAIL line that says so; the
#   others report as usual; the run exits 1 in seconds, not at the caller's limit (a GPU test
#   that waited for a word of the gate nobody sent once held a whole test run until the
#   machine's time was up).
# - With a GPU (a stand-in nvidia-smi): two "gpu-shared" groups run at the same time, and so
#   do two "gpu-graded" ones; a graded group never runs beside a shared one, and a "gpu"
#   group beside neither.
# - With two GPUs: two "gpu" groups run at the same time, each on a GPU of its own
#   (CUDA_VISIBLE_DEVICES), and never on a GPU that another group holds; CUDA_VISIBLE_DEVICES
#   set to one index keeps the run on that GPU, one group at a time.
# - Beside graded groups, groups without the GPU run a third of TEST_JOBS at once (or
#   TEST_CPU_JOBS); without graded groups, as many as TEST_JOBS.
source "$(dirname "$0")/../lib.sh"
unset TEST_REFERENCE_CACHE # the caller's: each run here says whether it shares

tree=$TEST_TMP/tree
mkdir -p "$tree/tests/x"
cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$tree/tests/"
printf '#!/usr/bin/env bash\nexit 0\n' >"$tree/tests/x/test_ok.sh"
printf '#!/usr/bin/env bash\necho "SKIP: nothing to see"\nexit 77\n' >"$tree/tests/x/test_skip.sh"
printf '#!/usr/bin/env bash\nsleep 299.731 &\nsleep 299.731\n' >"$tree/tests/x/test_hang.sh"

start=$SECONDS
TEST_GROUP_TIMEOUT=2 TEST_JOBS=3 bash "$tree/tests/run.sh" >"$TEST_TMP/out" 2>&1
rc=$?
took=$((SECONDS - start))
[ $rc -eq 1 ] && ok "a run with a group that hangs exits 1" || bad "exit $rc, expected 1"
[ $took -lt 30 ] && ok "it ends at the group's timeout ($took s)" || bad "it took $took s"
expect_grep '^FAIL  x/test_hang .*timed out after 2 s' "$TEST_TMP/out" "the hang is one FAIL line that says it timed out"
expect_grep '^PASS  x/test_ok ' "$TEST_TMP/out" "the group beside it passes"
expect_grep '^SKIP  x/test_skip  *nothing to see$' "$TEST_TMP/out" "the skip says why"
expect_grep '^1 passed, 1 failed, 1 skipped$' "$TEST_TMP/out" "the closing line counts all three"
sleep 0.5
if pgrep -f "sleep 299.731" >/dev/null; then
  bad "the hanging group's processes outlived it"; pkill -f "sleep 299.731"
else ok "the hanging group's processes are gone"; fi
TEST_GROUP_TIMEOUT=soon bash "$tree/tests/run.sh" >"$TEST_TMP/bad" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/bad")" = 1 ] && grep -q TEST_GROUP_TIMEOUT "$TEST_TMP/bad" &&
  ok "a bad TEST_GROUP_TIMEOUT: one line, exit 2" || { bad "bad TEST_GROUP_TIMEOUT: exit $rc"; cat "$TEST_TMP/bad"; }
TEST_REFERENCE_CACHE=yes bash "$tree/tests/run.sh" >"$TEST_TMP/bad" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/bad")" = 1 ] && grep -q TEST_REFERENCE_CACHE "$TEST_TMP/bad" &&
  ok "a bad TEST_REFERENCE_CACHE: one line, exit 2" || { bad "bad TEST_REFERENCE_CACHE: exit $rc"; cat "$TEST_TMP/bad"; }

# ---- a stopped run stops its groups: each is a process group of its own (timeout's), which
# a signal to the run's group never reached; they ran on, on the GPU too, after the run ended
tree=$TEST_TMP/tree-stop
mkdir -p "$tree/tests/x"
cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$tree/tests/"
mark="stop-mark-$$"
printf '#!/usr/bin/env bash\nexec -a %s sleep 60\n' "$mark" >"$tree/tests/x/test_long.sh"
setsid bash "$tree/tests/run.sh" >"$TEST_TMP/stop.out" 2>&1 &
runner=$!
for _ in $(seq 100); do pgrep -f "^$mark" >/dev/null && break; sleep 0.1; done
pgrep -f "^$mark" >/dev/null && ok "stop: the group runs" || bad "stop: the group never started"
kill -TERM "$runner"
wait "$runner"; rc=$?
for _ in $(seq 50); do pgrep -f "^$mark" >/dev/null || break; sleep 0.1; done
if pgrep -f "^$mark" >/dev/null; then
  bad "stop: the group's program outlived the stopped run"; pkill -KILL -f "^$mark"
else ok "stop: SIGTERM to the run ends its groups' programs too"; fi
[ $rc -eq 143 ] && grep -q 'stopped by SIGTERM, with the 1 group(s) still running' "$TEST_TMP/stop.out" &&
  ok "stop: exit 143 and one line that says so" || { bad "stop: exit $rc"; cat "$TEST_TMP/stop.out"; }

# ---- the GPU's lock: shared groups together, an exclusive one alone
tree=$TEST_TMP/tree2
mkdir -p "$tree/tests/x" "$TEST_TMP/bin"
cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$tree/tests/"
printf '#!/bin/sh\necho "GPU 0: stand-in (UUID: GPU-0)"\n' >"$TEST_TMP/bin/nvidia-smi"
chmod +x "$TEST_TMP/bin/nvidia-smi"
# groups TREE SPANS NAME:KIND:SECONDS...: test groups of that kind that sleep that long and
# write "NAME GPU TIME" to SPANS as they begin and end (GPU: their CUDA_VISIBLE_DEVICES)
groups() {
  local tree=$1 spans=$2 g name kind secs
  shift 2
  for g in "$@"; do
    IFS=: read -r name kind secs <<<"$g"
    printf '#!/usr/bin/env bash\n# test-group: %s\necho "%s ${CUDA_VISIBLE_DEVICES:-none} $(date +%%s.%%N)" >>"%s"\nsleep %s\necho "%s ${CUDA_VISIBLE_DEVICES:-none} $(date +%%s.%%N)" >>"%s"\necho "%s ${GRADER_GPU_LOCK:-none} ${GRADER_REFERENCE_CACHE:-none} ${CUDA_DEVICE_MAX_CONNECTIONS:-none}" >>"%s.locks"\n' \
      "$kind" "$name" "$spans" "$secs" "$name" "$spans" "$name" "$spans" >"$tree/tests/x/test_$name.sh"
  done
}
groups "$tree" "$TEST_TMP/spans" ex:gpu:1 sa:gpu-shared:2 sb:gpu-shared:2 ga:gpu-graded:2 \
  gb:gpu-graded:2
# one GPU: the stand-in's (CUDA_VISIBLE_DEVICES, as a run on a host of several GPUs sets it
# for this group, would name others)
env -u CUDA_VISIBLE_DEVICES -u CUDA_DEVICE_MAX_CONNECTIONS PATH="$TEST_TMP/bin:$PATH" TEST_JOBS=5 TEST_REFERENCE_CACHE=0 \
  bash "$tree/tests/run.sh" >"$TEST_TMP/out2" 2>&1 ||
  { bad "the GPU groups' run failed"; cat "$TEST_TMP/out2"; }
python3 - "$TEST_TMP/spans" >"$TEST_TMP/spans.check" 2>&1 <<'PY'
import sys
t = {}
for line in open(sys.argv[1]):
    name, _, at = line.split()
    t.setdefault(name, []).append(float(at))
apart = lambda x, y: t[x][1] <= t[y][0] or t[y][1] <= t[x][0]
assert not apart("sa", "sb"), ("the shared groups did not overlap", t)
assert not apart("ga", "gb"), ("the graded groups did not overlap", t)
for s in ("sa", "sb"):
    for g in ("ga", "gb"):
        assert apart(s, g), (f"the graded group {g} ran beside the shared group {s}", t)
for o in ("sa", "sb", "ga", "gb"):
    assert apart("ex", o), (f"the exclusive group ran beside {o}", t)
PY
[ $? -eq 0 ] && ok "gpu-shared groups share the GPU, gpu-graded ones too, never the two kinds at once; a gpu group has it alone" ||
  bad "GPU lock: $(cat "$TEST_TMP/spans.check")"
# the programs of gpu and gpu-shared groups open one hardware queue each (the grader sets its own)
if awk '$1 ~ /^[es]/ && $4 != "1" { bad = 1 } $1 ~ /^g/ && $4 != "none" { bad = 1 } END { exit bad || NR != 5 }' \
     "$TEST_TMP/spans.locks"; then
  ok "gpu and gpu-shared groups: CUDA_DEVICE_MAX_CONNECTIONS=1; gpu-graded ones: unset"
else bad "CUDA_DEVICE_MAX_CONNECTIONS by kind: $(tr '\n' ';' <"$TEST_TMP/spans.locks")"; fi
# ---- groups without the GPU beside graded ones: a third of the jobs at once (TEST_CPU_JOBS),
# so that the graded groups' builds and sanitizers keep cores; all of them without a GPU
most_at_once() { # SPANS PREFIX: the most groups named PREFIX* that ran at the same time
  python3 - "$@" <<'PY'
import sys
ev = []
for line in open(sys.argv[1]):
    name, _, at = line.split()
    if name.startswith(sys.argv[2]):
        ev.append((float(at), name))
ev.sort()
seen, now, most = set(), 0, 0
for at, name in ev:
    now += -1 if name in seen else 1
    seen.add(name)
    most = max(most, now)
print(most)
PY
}
tree=$TEST_TMP/tree5
mkdir -p "$tree/tests/x"
cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$tree/tests/"
groups "$tree" "$TEST_TMP/spans5" ga:gpu-graded:3 c1:cpu:1 c2:cpu:1 c3:cpu:1 c4:cpu:1 c5:cpu:1
env -u CUDA_VISIBLE_DEVICES PATH="$TEST_TMP/bin:$PATH" TEST_JOBS=6 bash "$tree/tests/run.sh" \
  >"$TEST_TMP/out5" 2>&1 || { bad "the capped run failed"; cat "$TEST_TMP/out5"; }
n=$(most_at_once "$TEST_TMP/spans5" c)
[ "$n" = 2 ] && ok "beside a graded group, TEST_JOBS=6 runs 2 groups without the GPU at once" ||
  bad "beside a graded group, $n groups without the GPU ran at once (2 expected)"
rm -f "$TEST_TMP/spans5"
env -u CUDA_VISIBLE_DEVICES PATH="$TEST_TMP/bin:$PATH" TEST_JOBS=6 TEST_CPU_JOBS=1 \
  bash "$tree/tests/run.sh" >"$TEST_TMP/out5" 2>&1 || { bad "the TEST_CPU_JOBS=1 run failed"; cat "$TEST_TMP/out5"; }
n=$(most_at_once "$TEST_TMP/spans5" c)
[ "$n" = 1 ] && ok "TEST_CPU_JOBS=1: one group without the GPU at a time" ||
  bad "TEST_CPU_JOBS=1: $n at once"
rm -f "$TEST_TMP/spans5"
rm "$tree/tests/x/test_ga.sh"
env -u CUDA_VISIBLE_DEVICES PATH="$TEST_TMP/bin:$PATH" TEST_JOBS=6 bash "$tree/tests/run.sh" \
  >"$TEST_TMP/out5" 2>&1 || { bad "the run without a graded group failed"; cat "$TEST_TMP/out5"; }
n=$(most_at_once "$TEST_TMP/spans5" c)
[ "$n" = 5 ] && ok "without a graded group, all 5 groups without the GPU at once" ||
  bad "without a graded group, $n at once (5 expected)"
TEST_CPU_JOBS=0 bash "$tree/tests/run.sh" >"$TEST_TMP/bad" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/bad")" = 1 ] && grep -q TEST_CPU_JOBS "$TEST_TMP/bad" &&
  ok "a bad TEST_CPU_JOBS: one line, exit 2" || { bad "bad TEST_CPU_JOBS: exit $rc"; cat "$TEST_TMP/bad"; }

# ---- two GPUs: a place each
tree=$TEST_TMP/tree3
mkdir -p "$tree/tests/x" "$TEST_TMP/bin2"
cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$tree/tests/"
printf '#!/bin/sh\necho "GPU 0: stand-in (UUID: GPU-0)"\necho "GPU 1: stand-in (UUID: GPU-1)"\n' \
  >"$TEST_TMP/bin2/nvidia-smi"
chmod +x "$TEST_TMP/bin2/nvidia-smi"
groups "$tree" "$TEST_TMP/spans3" ea:gpu:2 eb:gpu:2 ec:gpu:1 sa:gpu-shared:1 sb:gpu-shared:1 \
  ga:gpu-graded:1 gb:gpu-graded:1
check_places() { # SPANS WANT_GPUS: every group on one of them; a "gpu" group alone on its GPU,
  # shared (s*) and graded (g*) groups only beside their own kind
  python3 - "$@" <<'PY'
import sys
t, gpu_of = {}, {}
for line in open(sys.argv[1]):
    name, gpu, at = line.split()
    t.setdefault(name, []).append(float(at))
    gpu_of[name] = gpu
want = sys.argv[2].split(",")
assert all(g in want for g in gpu_of.values()), ("a group ran outside the GPUs", gpu_of)
names = sorted(t)
for a in names:
    for b in names:
        if a >= b or gpu_of[a] != gpu_of[b]:
            continue
        if a[0] == b[0] and a[0] in "sg":
            continue  # shared groups may share a GPU, graded groups too
        (a0, a1), (b0, b1) = t[a], t[b]
        assert a1 <= b0 or b1 <= a0, (f"{a} and {b} ran at once on GPU {gpu_of[a]}", t)
if len(want) > 1:
    (a0, a1), (b0, b1) = t["ea"], t["eb"]
    assert a0 < b1 and b0 < a1, ("the two gpu groups did not run at once", t, gpu_of)
PY
}
env -u CUDA_VISIBLE_DEVICES PATH="$TEST_TMP/bin2:$PATH" TEST_JOBS=5 bash "$tree/tests/run.sh" \
  >"$TEST_TMP/out3" 2>&1 || { bad "the two-GPU run failed"; cat "$TEST_TMP/out3"; }
check_places "$TEST_TMP/spans3" 0,1 >"$TEST_TMP/spans3.check" 2>&1 &&
  ok "two GPUs: two gpu groups at once, each alone on its GPU" ||
  bad "two GPUs: $(cat "$TEST_TMP/spans3.check")"
# the graded groups' GRADER_GPU_LOCK: one per GPU, the same for the graded groups on it, none
# for the other kinds; GRADER_REFERENCE_CACHE likewise by default (the run of spans3), never
# with TEST_REFERENCE_CACHE=0 (the run of spans)
python3 - "$TEST_TMP/spans3" "$TEST_TMP/spans" <<'PY' >"$TEST_TMP/locks.check" 2>&1
import sys
for spans, shared in zip(sys.argv[1:], (True, False)):
    gpu_of = {l.split()[0]: l.split()[1] for l in open(spans)}
    rows = [l.split() for l in open(spans + ".locks")]
    for i, ext in ((1, ".lock"), (2, ".refs")):
        named = {r[0]: r[i] for r in rows}
        for name, path in named.items():
            if name[0] != "g" or (ext == ".refs" and not shared):
                assert path == "none", (spans, name, "got", path)
                continue
            assert path.endswith(ext) and "/build/tests/" in path, (spans, name, path)
            for other, p in named.items():
                if other[0] == "g":
                    same = gpu_of[other] == gpu_of[name]
                    assert (p == path) == same, (spans, name, other, path, p, gpu_of)
PY
[ $? -eq 0 ] && ok "graded groups: GRADER_GPU_LOCK names one lock per GPU, and GRADER_REFERENCE_CACHE one cache unless TEST_REFERENCE_CACHE=0; none for the other kinds" ||
  bad "GRADER_GPU_LOCK, GRADER_REFERENCE_CACHE: $(cat "$TEST_TMP/locks.check")"
rm -f "$TEST_TMP/spans3" "$TEST_TMP/spans3.locks"
CUDA_VISIBLE_DEVICES=1 PATH="$TEST_TMP/bin2:$PATH" TEST_JOBS=5 bash "$tree/tests/run.sh" \
  >"$TEST_TMP/out4" 2>&1 || { bad "the one-GPU run failed"; cat "$TEST_TMP/out4"; }
check_places "$TEST_TMP/spans3" 1 >"$TEST_TMP/spans4.check" 2>&1 &&
  ! grep -q " 0 " "$TEST_TMP/spans3" &&
  ok "CUDA_VISIBLE_DEVICES=1: one GPU, a gpu group alone on it" ||
  bad "CUDA_VISIBLE_DEVICES=1: $(cat "$TEST_TMP/spans4.check") $(cat "$TEST_TMP/spans3")"
finish

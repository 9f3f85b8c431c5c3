#!/usr/bin/env bash
# The lecture notes read as a student's text (tests/notes/notes_words.pl): no words of how the
# course was built (goals met or not, earlier sessions and references, variants left out), and
# every table measured on the H200 names the machine and the day just above it. Each check is
# first shown to fail on a bad text and to pass a good one, then run on every lesson's README.
# Needs no GPU and no build.
source "$(dirname "$0")/../lib.sh"

pl=tests/notes/notes_words.pl
lessons=(lessons/*/README.md)

# -- build-history words: each line of the bad text is one finding, none in the good text
cat >"$TEST_TMP/bad.md" <<'EOF'
The reference was built to reach at least 80 %.
The goal set for this lesson was 1.2x the copy time.
The goal line reads 1.48 x: NOT met.
The matmul_tiled task in an earlier session took 15.9 ms.
An earlier reference loaded one scalar per thread.
While the ladder was built, the kernel was also tried with a k-tile of 16.
Three variants measured and left out: a taller tile.
It came out 0.88x to 1.47x in eleven gradings of one day.
EOF
cat >"$TEST_TMP/good.md" <<'EOF'
The demo's last line is `reduce_sum: ours (11) / CUB (10) throughput: 0.994 x, goal >= 0.98 x (ratio 1.01): met`.
Start a cuda-gdb session on the program; a profiling session in Nsight Systems works too.
The copy is left out of the timed region on purpose: only the kernel is timed.
The kernel is built twice, with and without edge tests.
<!-- goal bookkeeping inside a comment is not prose -->
```
saxpy: managed pipelined / pinned copies time: 1.48 x, goal <= 1.2 x (ratio 0.81): NOT met
```
EOF
n_bad=$(wc -l <"$TEST_TMP/bad.md")
# every line of the bad text is found (a line may break two rules)
perl "$pl" history "$TEST_TMP/bad.md" >"$TEST_TMP/bad.out"
missed=0
for i in $(seq 1 "$n_bad"); do
  grep -q "bad.md:$i:" "$TEST_TMP/bad.out" || { bad "not found: $(sed -n "${i}p" "$TEST_TMP/bad.md")"; missed=1; }
done
[ $missed -eq 0 ] && ok "history words found on all $n_bad lines of a bad text"
perl "$pl" history "$TEST_TMP/good.md" >"$TEST_TMP/good.out" \
  && ok "honest prose, code spans, code blocks and comments pass" \
  || { bad "honest prose flagged:"; cat "$TEST_TMP/good.out"; }
if perl "$pl" history "${lessons[@]}" >"$TEST_TMP/history.out"; then ok "the notes speak of no build history"
else bad "the notes speak of how the course was built:"; head -n 20 "$TEST_TMP/history.out"; fi

# -- H200 tables name their day
cat >"$TEST_TMP/undated.md" <<'EOF'
# A

Measured on the H200 (CUDA 13.0):

| n | ms |
|---|---|
| 1024 | 0.07 |

## B

Measured on the H200 on 2026-11-22, far above the table.

a line
a line
a line
a line
a line
a line
a line
a line

| n | ms |
|---|---|
| 2048 | 0.35 |

| n | H200 ms |
|:--|--:|
| 4096 | 2.7 |
EOF
cat >"$TEST_TMP/dated.md" <<'EOF'
# A

Measured on the H200 (CUDA 13.0) on 2026-11-22:

| n | ms |
|---|---|
| 1024 | 0.07 |

| then (G80) | now (Hopper) |
|---|---|
| 16 KB of shared memory | 228 KB |

The lecture's own times (H200 figures in the next table, of 2026-11-23):

| n | lecture ms |
|---|---|
| 512 | 0.219 |

```
| H200 | a table inside a code block is no table |
|---|---|
```
EOF
perl "$pl" dated "$TEST_TMP/undated.md" >"$TEST_TMP/undated.out"; rc=$?
n=$(wc -l <"$TEST_TMP/undated.out")
if [ $rc -eq 1 ] && [ "$n" -eq 2 ] && grep -q 'undated.md:5:' "$TEST_TMP/undated.out" \
   && grep -q 'undated.md:26:' "$TEST_TMP/undated.out"; then
  ok "undated H200 tables found (a date too far above does not count)"
else bad "undated H200 tables: exit $rc, $n findings"; cat "$TEST_TMP/undated.out"; fi
perl "$pl" dated "$TEST_TMP/dated.md" >"$TEST_TMP/dated.out" \
  && ok "dated tables, tables without the H200 and code blocks pass" \
  || { bad "a dated table flagged:"; cat "$TEST_TMP/dated.out"; }
if perl "$pl" dated "${lessons[@]}" >"$TEST_TMP/dated_notes.out"; then ok "every H200 table of the notes is dated"
else bad "H200 tables without a date:"; head -n 20 "$TEST_TMP/dated_notes.out"; fi

# -- usage
perl "$pl" >/dev/null 2>"$TEST_TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q usage "$TEST_TMP/err" && ok "no arguments: usage, exit 2" || bad "no arguments: exit $rc"

finish

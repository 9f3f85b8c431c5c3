#!/usr/bin/env bash
# The fixture class through a single-node Slurm cluster started here on localhost (munge,
# slurmctld, slurmd, configured in a temporary directory): the gradebook must be identical to
# the one graded locally. Where Slurm cannot start: one SKIP line.
source "$(dirname "$0")/../lib.sh"
source tests/class/fixture.sh

source tests/class/cluster.sh

require_slurm
setup_course
batch_reference
start_cluster

OPTS=(--course "$COURSE_DIR" --no-sanitize --timeout 3)
# ---- the same class locally and through the cluster, side by side: two class folders of
# their own, over the course that batch_reference built
make_class "$TEST_TMP/local"
make_class "$TEST_TMP/cluster"
"$GRADER" class "$TEST_TMP/local" "${OPTS[@]}" --jobs 2 >"$TEST_TMP/local.out" 2>&1 &
local_pid=$!
"$GRADER" class "$TEST_TMP/cluster" "${OPTS[@]}" --slurm --chunk 2 --time 10 --mem 500 --cpus 1 \
  --wait --interval 1 >"$TEST_TMP/slurm.out" 2>&1
rc=$?
wait $local_pid || { bad "local grading failed"; tail "$TEST_TMP/local.out"; }
skip_without_runs "$TEST_TMP/local/gradebook.csv"
sed 's/^/    /' "$TEST_TMP/slurm.out" | head -n 30
[ $rc -eq 0 ] && ok "grader class --slurm --wait: exit 0" || bad "grader class --slurm: exit $rc"
expect_grep "^submitted job [0-9]+: ${#STUDENTS[@]} students in 7 array tasks" "$TEST_TMP/slurm.out" "job array submitted"
expect_grep "students graded$" "$TEST_TMP/slurm.out" "progress reported while it ran"
expect_grep "none in the queue; ${#STUDENTS[@]} of ${#STUDENTS[@]} students graded" "$TEST_TMP/slurm.out" "every student graded"
check_book "$TEST_TMP/cluster/gradebook.csv"
if cmp -s "$TEST_TMP/local/gradebook.csv" "$TEST_TMP/cluster/gradebook.csv"; then
  ok "the cluster's gradebook is identical to the local one"
else
  bad "gradebooks differ"; diff "$TEST_TMP/local/gradebook.csv" "$TEST_TMP/cluster/gradebook.csv" | head
fi
ls "$TEST_TMP/cluster/.grader/slurm/logs/"*.out >/dev/null 2>&1 && ok "array task logs kept" || bad "no array task logs"

# ---- collect: lists what did not finish (a student added after the job), merges the rest
mkdir -p "$TEST_TMP/cluster/late/exercises"
"$GRADER" collect "$TEST_TMP/cluster" >"$TEST_TMP/collect.out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "collect with an ungraded student exits 1" || bad "collect exit $rc"
expect_grep "late +not graded" "$TEST_TMP/collect.out" "collect lists the ungraded student"
expect_grep "^late,pending," "$TEST_TMP/cluster/gradebook.csv" "the ungraded student is pending in the gradebook"
finish

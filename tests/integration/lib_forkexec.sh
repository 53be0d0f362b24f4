# sprof_lib follows fork as it follows exec: the parent, the forked child and
# the image the child execs into each get a profile (%p; the exec'd image of
# a pid that was profiled already is its next image, .exec1), each with its
# own functions only. A child that execs before it is ticked (a shell's)
# leaves no profile of that instant: its exec'd image is the pid's first.
source "$(dirname "$0")/common.sh" "$1"

forkexec_vs_truth sprof_lib
child=$(awk '/^child/ {print $2}' out.txt)
"$BIN/sprof" --info --format json "fe.$child.sprof" | python3 -c '
import json, sys
p = json.load(sys.stdin)["profiles"][0]
assert p["ended"].startswith("exec"), p["ended"]' || fail "the forked child's profile does not end at its exec"

# A shell's children exec at once: one profile per program, none of the forks.
rm -f ./*.sprof
"$BIN/sprof_lib" -e task-clock -o sh.sprof bash -c "for i in 1 2 3; do $WORK/alternate -t 0.05 -o /dev/null; done"
profiles=(sh*.sprof)
[ ${#profiles[@]} -eq 4 ] || fail "a shell running 3 programs: ${#profiles[@]} profiles (${profiles[*]}), not 4"
[ -z "$(ls sh.*.exec1.sprof 2>/dev/null)" ] || fail "a child that exec'd at once left a profile of its fork"
pass "sprof_lib follows fork (a profile per forked child) and exec"

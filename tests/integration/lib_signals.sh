# sprof_lib leaves the program's own timers and signals alone: a program that
# counts its own ITIMER_PROF ticks gets as many as without the profiler, and a
# program that crashes still leaves a readable profile and dies as it would.
source "$(dirname "$0")/common.sh" "$1"

own_ticks_kept "$BIN/sprof_lib" -o sigprof.sprof
"$BIN/sprof" sigprof.sprof | grep -q timed_work || fail "sigprof profile lacks timed_work"

set +e
"$BIN/sprof_lib" -H 5 -o crash.sprof "$WORK/crasher" -t 0.5; rc=$?
set -e
[ $rc -eq 139 ] || fail "crashing program: exit status $rc, not 139"
"$BIN/sprof" --format csv crash.sprof 2>warn.txt | grep -q '^doomed,' || fail "crash profile lacks doomed()"
pass "sprof_lib passes the program's own signals through; a crash leaves a readable profile"

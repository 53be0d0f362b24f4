# sprof_lib leaves the program's own timers and signals alone: a program that
# counts its own ITIMER_PROF ticks gets as many as without the profiler, and a
# program that crashes still leaves a readable profile and dies as it would.
source "$(dirname "$0")/common.sh" "$1"

# 1 s of CPU time at 10 ms: 100 ticks. Tick-granular CPU timers (HZ=250) on a
# loaded machine give a few more or less; none may be swallowed or doubled.
ticks=$("$BIN/sprof_lib" -o sigprof.sprof "$WORK/sigprof_user" -t 1 -i 10 | awk '/^ticks/ {print $2}')
[ "$ticks" -ge 80 ] && [ "$ticks" -le 120 ] || fail "the program's own SIGPROF ticks: $ticks under sprof_lib, 100 expected"
echo "ok: SIGPROF ticks under sprof_lib: $ticks of 100"
"$BIN/sprof" sigprof.sprof | grep -q timed_work || fail "sigprof profile lacks timed_work"

set +e
"$BIN/sprof_lib" -H 5 -o crash.sprof "$WORK/crasher" -t 0.5; rc=$?
set -e
[ $rc -eq 139 ] || fail "crashing program: exit status $rc, not 139"
"$BIN/sprof" --format csv crash.sprof 2>warn.txt | grep -q '^doomed,' || fail "crash profile lacks doomed()"
pass "sprof_lib passes the program's own signals through; a crash leaves a readable profile"

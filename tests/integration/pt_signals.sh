# Signals under sprof_pt: a program's own SIGPROF timer gets its ticks, a
# crash is passed on (139) with a readable profile, and SIGTERM sent to
# sprof_pt reaches the program while the profile is still finished.
source "$(dirname "$0")/common.sh" "$1"

end_status() { "$BIN/sprof" --info --format json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["profiles"][0]["exit_status"])'; }
ended() { "$BIN/sprof" --info --format json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["profiles"][0]["ended"])'; }

# 1 s of CPU time at 10 ms: 100 ticks. Tick-granular CPU timers (HZ=250) on a
# loaded machine give a few more or less; none may be swallowed or doubled.
traced=$("$BIN/sprof_pt" -e task-clock -o sp.sprof "$WORK/sigprof_user" -t 1 -i 10 | awk '{print $2}')
echo "SIGPROF ticks under sprof_pt: $traced of 100"
[ "$traced" -ge 80 ] && [ "$traced" -le 120 ] || fail "the program's own SIGPROF ticks: $traced under sprof_pt, 100 expected"

set +e
"$BIN/sprof_pt" -e task-clock -o crash.sprof "$WORK/crasher" -t 0.5; rc=$?
set -e
[ $rc -eq 139 ] || fail "crasher: exit status $rc, not 139"
"$BIN/sprof" --format csv crash.sprof > crash.csv
doomed=$(awk -F, '$1 == "doomed" {print $3}' crash.csv)
[ "${doomed:-0}" -ge 30 ] || fail "crasher: doomed has ${doomed:-no} samples"
[ "$(end_status crash.sprof)" -eq 139 ] || fail "crasher: END exit status $(end_status crash.sprof)"
[ "$(ended crash.sprof)" = "killed by SIGSEGV" ] || fail "crasher: ended '$(ended crash.sprof)'"

"$BIN/sprof_pt" -e task-clock -o term.sprof "$WORK/alternate" -t 30 -o /dev/null &
pt=$!
sleep 1
kill -TERM $pt
set +e
wait $pt; rc=$?
set -e
[ $rc -eq 143 ] || fail "SIGTERM to sprof_pt: exit status $rc, not 143"
[ "$(end_status term.sprof)" -eq 143 ] || fail "SIGTERM: END exit status $(end_status term.sprof)"
[ "$(ended term.sprof)" = "killed by SIGTERM" ] || fail "SIGTERM: ended '$(ended term.sprof)'"
pass "sprof_pt passes SIGPROF, crashes and SIGTERM through and finishes the profile"

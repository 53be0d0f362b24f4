# sprof_lib leaves the program's exit status, output, input and signals alone,
# and refuses what it cannot do with one clear line and a non-zero status.
source "$(dirname "$0")/common.sh" "$1"

set +e
"$BIN/sprof_lib" -- sh -c 'exit 7'; rc=$?
[ $rc -eq 7 ] || fail "exit status 7 came back as $rc"
out=$(echo "hello from stdin" | "$BIN/sprof_lib" -o cat.sprof cat); rc=$?
[ "$out" = "hello from stdin" ] && [ $rc -eq 0 ] || fail "stdin/stdout passthrough: '$out' rc=$rc"
"$BIN/sprof_lib" -o kill.sprof -- sh -c 'kill -TERM $$'; rc=$?
[ $rc -eq 143 ] || fail "death by SIGTERM came back as $rc, not 143"
"$BIN/sprof_lib" ./no-such-program 2>err.txt; rc=$?
[ $rc -eq 127 ] && grep -q "cannot run './no-such-program'" err.txt || fail "missing program: rc=$rc $(cat err.txt)"
"$BIN/sprof_lib" -e cycles true 2>err.txt; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "cycles" err.txt || fail "uncountable event: rc=$rc $(cat err.txt)"
"$BIN/sprof_lib" -e task-clock,no-such-event true 2>err.txt; rc=$?
[ $rc -ne 0 ] && grep -q "no-such-event" err.txt || fail "unknown event: rc=$rc $(cat err.txt)"
"$BIN/sprof_lib" --slots 0 true 2>err.txt; rc=$?
[ $rc -eq 2 ] || fail "--slots 0 accepted (rc=$rc)"
"$BIN/sprof_lib" --bogus true 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -q -- "--bogus" err.txt || fail "unknown option: rc=$rc $(cat err.txt)"
set -e
"$BIN/sprof_lib" --list-events > events.txt
for ev in task-clock page-faults $(choose_events context-switches minor-faults); do
    grep -qx "$ev" events.txt || fail "--list-events lacks $ev"
done
if [ "$UNPRIVILEGED" = 1 ]; then
    # A user kept out of the kernel is not offered kernel-only events, and
    # asking for one is a one-line error that says why, not a column of zeros.
    ! grep -qx context-switches events.txt || fail "--list-events offers a user context-switches"
    set +e
    "$BIN/sprof_lib" -e task-clock,context-switches true 2>err.txt; rc=$?
    set -e
    [ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "perf_event_paranoid" err.txt ||
        fail "kernel-only event for a user: rc=$rc $(cat err.txt)"
fi
pass "sprof_lib passes status, stdio and signals through and rejects bad input"

# A program's children that exec get their own profiles; -o without %p is kept
# for the program itself.
"$BIN/sprof_lib" -e task-clock -o family.sprof -- sh -c "\"$WORK/alternate\" -t 0.2 -o /dev/null; true"
[ -s family.sprof ] || fail "the program's own profile family.sprof is missing"
child=$(ls family.*.sprof 2>/dev/null | head -1)
[ -n "$child" ] || fail "the child's profile family.<pid>.sprof is missing: $(ls)"
"$BIN/sprof" --format csv "$child" | grep -q '^heavy,' || fail "the child's profile lacks heavy()"
pass "children of the program get profiles of their own"

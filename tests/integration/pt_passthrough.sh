# sprof_pt leaves the program's exit status, output and input alone, and
# refuses what it cannot do with one clear line and the shell's status.
source "$(dirname "$0")/common.sh" "$1"

set +e
"$BIN/sprof_pt" -o s.sprof -- sh -c 'exit 7'; rc=$?
[ $rc -eq 7 ] || fail "exit status 7 came back as $rc"
out=$(echo "hello from stdin" | "$BIN/sprof_pt" -o cat.sprof cat); rc=$?
[ "$out" = "hello from stdin" ] && [ $rc -eq 0 ] || fail "stdin/stdout passthrough: '$out' rc=$rc"
"$BIN/sprof_pt" -o kill.sprof -- sh -c 'kill -TERM $$'; rc=$?
[ $rc -eq 143 ] || fail "death by SIGTERM came back as $rc, not 143"
"$BIN/sprof_pt" -e task-clock ./no-such-program 2>err.txt; rc=$?
[ $rc -eq 127 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "cannot run './no-such-program'" err.txt ||
    fail "missing program: rc=$rc $(cat err.txt)"
printf '#!/bin/sh\n' > not-executable
"$BIN/sprof_pt" -e task-clock ./not-executable 2>err.txt; rc=$?
[ $rc -eq 126 ] && grep -q "Permission denied" err.txt || fail "not executable: rc=$rc $(cat err.txt)"
"$BIN/sprof_pt" --clock sundial true 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -q "sundial" err.txt || fail "bad --clock: rc=$rc $(cat err.txt)"
set -e
ls ./*.sprof > /dev/null
[ ! -e no-such-program.*.sprof ] || fail "a profile was written for a program that never ran"
"$BIN/sprof_pt" --clock wall -e task-clock -o wall.sprof "$WORK/alternate" -t 1 -o truth.txt
"$BIN/sprof" --format csv wall.sprof > wall.csv
heavy=$(awk -F, '$1 == "heavy" {print $3}' wall.csv)
[ "${heavy:-0}" -ge 40 ] || fail "--clock wall: heavy has ${heavy:-no} samples"
pass "sprof_pt passes status and stdio through and rejects bad input"

# preprof writes <program>.prf; sprof_pt and sprof_lib take its options and
# its function tables (a renamed function shows up in the profile, at the
# source lines of the program's debug info), the command line overrides it,
# and a stale or malformed file is a one-line error.
source "$(dirname "$0")/common.sh" "$1"

cp "$WORK/alternate" ./alt
"$BIN/preprof" -e task-clock,page-faults --slots 1 -s 5ms ./alt > /dev/null
grep -qx "sprof-control 1" alt.prf || fail "no format version line"
grep -q "^object .* $SCRATCH/alt\$" alt.prf || fail "no table of the program"
grep -q "^object .*/libc.so.6\$" alt.prf || fail "no table of libc"
grep -q "^function [0-9a-f]* [0-9a-f]* heavy\$" alt.prf || fail "heavy missing from the program's table"

info() { "$BIN/sprof" --info --format json "$1" | python3 -c "import json,sys; p=json.load(sys.stdin)['profiles'][0]; print($2)"; }
# The tables are used: rename heavy in the control file (kept newer than the program).
sed -i 's/^\(function [0-9a-f]* [0-9a-f]*\) heavy$/\1 heavy_from_control/' alt.prf
for tool in sprof_pt sprof_lib; do
    "$BIN/$tool" -o $tool.sprof ./alt -t 0.5 -o /dev/null
    [ "$(info $tool.sprof "p['sample_interval_ns'], p['slots'], len(p['events'])")" = "5000000 1 2" ] ||
        fail "$tool: options of the control file not used: $(info $tool.sprof "p['sample_interval_ns'], p['slots'], len(p['events'])")"
    "$BIN/sprof" --format csv $tool.sprof | grep -q "^heavy_from_control," || fail "$tool: the control file's tables not used"
    # Lines still come from the program's debug info: heavy's time is at its
    # lines of alternate.c, the inlined spin loop folded in (the default).
    "$BIN/sprof" --lines --format csv $tool.sprof |
        grep -q "^alternate\.c:[1-9][0-9]*,heavy_from_control," || fail "$tool: no source lines with the control file's tables"
    "$BIN/$tool" -s 20ms -o $tool-cli.sprof ./alt -t 0.3 -o /dev/null
    [ "$(info $tool-cli.sprof "p['sample_interval_ns']")" = "20000000" ] || fail "$tool: -s does not override the control file"
done
"$BIN/sprof_pt" -c alt.prf -o explicit.sprof "$SCRATCH/alt" -t 0.3 -o /dev/null
[ "$(info explicit.sprof "p['slots']")" = "1" ] || fail "-c FILE not used"

set +e
touch alt  # the program is now newer than its control file
for tool in sprof_pt sprof_lib; do
    "$BIN/$tool" -o stale.sprof ./alt -t 0.1 -o /dev/null 2> err.txt; rc=$?
    [ $rc -ne 0 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "alt.prf is stale" err.txt ||
        fail "$tool: stale control file: rc=$rc $(cat err.txt)"
done
printf 'sprof-control 1\nprogram %s\nslots two\n' "$SCRATCH/alt" > bad.prf
"$BIN/sprof_pt" -c bad.prf -o bad.sprof ./alt -t 0.1 2> err.txt; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "bad.prf:3: 'two' is not a number" err.txt ||
    fail "malformed control file: rc=$rc $(cat err.txt)"
head -c 300 alt.prf > cut.prf
"$BIN/sprof_pt" -c cut.prf -o cut.sprof ./alt -t 0.1 2> err.txt; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l < err.txt)" -eq 1 ] || fail "truncated control file: rc=$rc $(cat err.txt)"
set -e
[ ! -e stale.sprof ] && [ ! -e bad.sprof ] || fail "a profile was written despite a bad control file"
"$BIN/preprof" ./alt > /dev/null  # written again: accepted again
"$BIN/sprof_pt" -e task-clock -o fresh.sprof ./alt -t 0.1 -o /dev/null
pass "preprof control files are used, overridden, and refused when stale or malformed"

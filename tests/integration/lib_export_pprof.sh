# `sprof --export pprof` of a real run, read back by pprof itself (go tool
# pprof): sprof_lib on two alternating functions of known CPU time and page
# faults (the alternate workload, 4 events on 2 slots). What pprof reads is
# the flat report, function by function, and sprof --lines, line by line
# (the workload is built with -g), and agrees with the workload's own
# accounting as the flat report does. SKIP without go.
source "$(dirname "$0")/common.sh" "$1"
command -v go > /dev/null || { echo "skipped: no go (go tool pprof) to read the export back"; exit 77; }
events=$(choose_events task-clock,page-faults,context-switches,cpu-migrations \
                       task-clock,page-faults,minor-faults,major-faults)
"$BIN/sprof_lib" -e "$events" --slots 2 -o alt.sprof "$WORK/alternate" -t 5 -m 50 -o truth.txt
"$BIN/sprof" --format csv alt.sprof > flat.csv
"$BIN/sprof" --lines --format csv alt.sprof > lines.csv
"$BIN/sprof" --export pprof alt.pb.gz alt.sprof
python3 "$HERE/check_pprof.py" alt.pb.gz flat.csv pprof.csv lines.csv ||
    fail "pprof does not read the flat report and the source lines back"
python3 "$HERE/check_alternate.py" pprof.csv truth.txt "pprof" || fail "pprof's shares or page faults differ from the truth"
# pprof's own view by an event, inlined code with its caller as the flat
# report counts it (-noinlines): heavy() makes the page faults.
top=$(go tool pprof -top -noinlines -sample_index=page-faults alt.pb.gz)
echo "$top" | sed -n '/flat%/,+2p'
[ "$(awk '/flat%/ {getline; print $NF}' <<<"$top")" = heavy ] || fail "pprof -top by page-faults does not put heavy first: $top"
pass "sprof_lib alternate: go tool pprof reads the pprof export as the flat report, within the truth"

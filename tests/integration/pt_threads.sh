# sprof_pt follows every thread: three threads working 1:2:3 (each in its own
# function) get time shares that match their own CPU-time accounting, and the
# profile lists all four threads.
source "$(dirname "$0")/common.sh" "$1"

"$BIN/sprof_pt" -e task-clock,context-switches -o thr.sprof "$WORK/threads" -u 0.5 -o truth.txt
"$BIN/sprof" --format csv thr.sprof > report.csv
python3 "$HERE/check_shares.py" report.csv truth.txt sprof_pt/threads \
    work1=work1_cpu_s work2=work2_cpu_s work3=work3_cpu_s
threads=$("$BIN/sprof" --info --format json thr.sprof |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)["profiles"][0]["threads"]))')
[ "$threads" -eq 4 ] || fail "$threads threads in the profile, not 4"
pass "sprof_pt samples every thread in proportion to its work"

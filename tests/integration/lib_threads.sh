# sprof_lib samples every thread on its own CPU time: three threads working in
# the ratio 1:2:3, each in its own function, against their own CPU clocks.
source "$(dirname "$0")/common.sh" "$1"

"$BIN/sprof_lib" -e task-clock,page-faults --slots 1 -o threads.sprof "$WORK/threads" -u 0.4 -o truth.txt
"$BIN/sprof" --format csv threads.sprof > report.csv
python3 "$HERE/check_shares.py" report.csv truth.txt sprof_lib/threads \
    work1=work1_cpu_s work2=work2_cpu_s work3=work3_cpu_s
# The three workers get samples; the main thread only waits (it may have none).
threads=$("$BIN/sprof" --info --format json threads.sprof |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)["profiles"][0]["threads"]))')
[ "$threads" -ge 3 ] || fail "$threads threads in the profile, not at least the 3 workers"
pass "sprof_lib threads: per-thread sampling matches each thread's CPU time"

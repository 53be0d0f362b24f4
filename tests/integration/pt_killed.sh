# sprof_pt killed with SIGKILL: the program runs on, untraced (the kernel
# detaches it, as when strace or perf record is killed; a profiler's death
# must not take the user's job with it), and the profile holds every sample
# up to at most one flush period (100 ms of CPU) before the kill, in whole
# records, with no END (the reader says so).
source "$(dirname "$0")/common.sh" "$1"

"$BIN/sprof_pt" -e task-clock,page-faults -o killed.sprof "$WORK/ending" -e wait -t 2.5 -o truth.txt &
pt=$!
sleep 1.3
prog=$(pgrep -P $pt) || fail "the program is not running under sprof_pt"
trap 'rc=$?; kill -9 $prog 2>/dev/null; finish_test $rc' EXIT  # it outlives sprof_pt: never leave it behind
cpu_at_kill=$(awk '{print $1 / 1e9}' /proc/$prog/schedstat)  # its CPU time, ns precision
kill -9 $pt
set +e
wait $pt
set -e
# The program burns the rest of its 2.5 s, reports, and waits to be killed
# (on a busy machine 1.2 s of CPU may take many seconds).
for _ in $(seq 600); do grep -q '^cpu0' truth.txt 2>/dev/null && break; sleep 0.1; done
grep -q '^cpu0' truth.txt || fail "the program did not run on after sprof_pt was killed"
kill -0 "$prog" 2>/dev/null || fail "the program is gone"
grep -q '^TracerPid:[[:space:]]*0$' /proc/$prog/status || fail "the program is still traced"
kill -9 "$prog"

"$BIN/sprof" --info --format json killed.sprof > info.json 2> info.err
"$BIN/sprof" --format csv killed.sprof > functions.csv 2>> info.err
python3 - info.json functions.csv "$cpu_at_kill" <<'PY'
import csv, json, sys
info = json.load(open(sys.argv[1]))["profiles"][0]
cpu = float(sys.argv[3])
samples = info["samples"]
profiled = sum(float(r["time_s"]) for r in csv.DictReader(open(sys.argv[2])))  # the ticks' CPU time
print(f"sprof_pt killed after {cpu:.3f} s of the program's CPU: {samples} samples ({profiled:.2f} s) in the profile")
assert info["exit_status"] is None, "a killed monitor cannot know the program's exit"
# Lost: at most one flush period (100 ms) plus the tick in flight (10 ms).
assert profiled >= cpu - 0.100 - 0.010 - 0.005, f"only {profiled:.2f} s of {cpu:.3f} s kept"
assert profiled <= cpu + 0.010, f"{profiled:.2f} s profiled, more than the {cpu:.3f} s run"
PY
pass "sprof_pt killed: the program runs on, the profile keeps all but the last flush period"

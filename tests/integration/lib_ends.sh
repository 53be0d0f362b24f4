# sprof_lib keeps every sample however the program ends: exit, _exit (dash
# ends that way), exec (of itself, with the default name and with a fixed
# -o FILE; and an exec that fails), a crash (SIGSEGV), SIGTERM, kill -9 of
# a program with two busy threads, and vfork children that _exit or exec. Each profile must hold the program's own
# CPU time (its threads' task-clocks, the clock the ticks run on, reported by
# the workload: tests/workloads/ending.c) less at most one drain period
# (100 ms) and one sampling interval per thread, never more than that time,
# and say how the program ended where that can be known. (A shell cannot
# read its task-clock: main_thread_clock reads it from outside.)
# The CPU times are chosen so that the last, unfinished histogram interval
# (50 samples) holds 45 samples: losing it fails the test.
source "$(dirname "$0")/common.sh" "$1"

INTERVAL=0.010  # sprof_lib's default sampling interval
PERIOD=0.100    # the runtime writes what it has every 100 ms

# totals PROFILE [FUNCTION…]: "samples seconds" of these functions (all when none).
totals() {
    "$BIN/sprof" --format csv "$1" 2>/dev/null | python3 -c '
import csv, sys
want = set(sys.argv[1:])
rows = [r for r in csv.DictReader(sys.stdin) if not want or r["function"] in want]
print(sum(int(r["samples"]) for r in rows), sum(float(r["time_s"]) for r in rows))' "${@:2}"
}

# truth FILE KEY: the value the workload reported.
truth() { awk -v k="$2" '$1 == k {print $2}' "$1"; }

# check_samples NAME PROFILE CPU_S THREADS FUNCTION…: the functions' time
# covers CPU_S but at most THREADS × (period + interval); the whole profile
# holds no more than CPU_S (no sample written twice). Time, not samples: the
# tick periods are dithered, so a second holds about, not exactly, 100.
check_samples() {
    local name=$1 profile=$2 cpu=$3 threads=$4
    shift 4
    [ -n "$cpu" ] || fail "$name: the workload reported no CPU time"
    python3 - "$name" "$cpu" "$threads" $(totals "$profile" "$@") $(totals "$profile") "$INTERVAL" "$PERIOD" <<'EOF'
import sys
name = sys.argv[1]
cpu, threads = float(sys.argv[2]), int(sys.argv[3])
samples, seconds, all_samples, all_seconds = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
interval, period = float(sys.argv[8]), float(sys.argv[9])
least = cpu - threads * (period + interval)
ok = seconds >= least and all_seconds <= cpu + 1e-6
print(f"{'ok' if ok else 'FAIL'}: {name}: {samples} samples, {seconds:.3f} s of {cpu:.3f} s CPU "
      f"(at least {least:.3f} s); whole profile {all_samples} samples, {all_seconds:.3f} s")
sys.exit(0 if ok else 1)
EOF
}

# check_ended NAME PROFILE TEXT: what `sprof --info` says of the ending.
check_ended() {
    local got
    got=$("$BIN/sprof" --info "$2" 2>/dev/null | sed -n 's/^ended  *//p')
    [ "$got" = "$3" ] || fail "$1: ended '$got', not '$3'"
    echo "ok: $1: ended $got"
}

# run EXPECTED_STATUS COMMAND…: runs it, checks the status the shell sees.
run() {
    local want=$1 rc=0
    shift
    "$@" 2>>stderr.txt || rc=$?
    [ "$rc" -eq "$want" ] || fail "$*: exit status $rc, not $want ($(tail -3 stderr.txt))"
}

ending="$WORK/ending"

# exit() and _exit(): the last interval is in the profile either way.
run 3 "$BIN/sprof_lib" -o exit.sprof "$ending" -e exit -t 0.95 -o exit.txt
check_samples "exit" exit.sprof "$(truth exit.txt cpu0)" 1 burn
check_ended "exit" exit.sprof "exit 3"
run 3 "$BIN/sprof_lib" -o _exit.sprof "$ending" -e _exit -t 0.95 -o _exit.txt
check_samples "_exit" _exit.sprof "$(truth _exit.txt cpu0)" 1 burn
check_ended "_exit" _exit.sprof "exit 3 (_exit)"

# dash ends through _exit; its main thread's task-clock is read from outside
# (main_thread_clock: the counter follows the thread through sprof_lib's exec
# of the shell). Its speed is not known beforehand: one histogram interval
# for the whole run, so none closes before the end.
run 0 "$WORK/main_thread_clock" dash.txt "$BIN/sprof_lib" -H 1000 -o dash.sprof -- sh -c \
    'i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done'
check_samples "sh -c loop" dash.sprof "$(truth dash.txt cpu0)" 1
check_ended "sh -c loop" dash.sprof "exit 0 (_exit)"

# A crash and a SIGTERM: the program dies as it would (status 128 + signal).
run 139 "$BIN/sprof_lib" -o segv.sprof "$ending" -e segv -t 0.95 -o segv.txt
check_samples "SIGSEGV" segv.sprof "$(truth segv.txt cpu0)" 1 burn
check_ended "SIGSEGV" segv.sprof "killed by SIGSEGV"

# kill_when_reported SIGNAL STATUS PROFILE TRUTH WORKLOAD_ARGS…: runs the
# workload in "wait" mode, sends SIGNAL as soon as it reported its CPU time
# (it then only waits), and checks the exit status.
kill_when_reported() {
    local sig=$1 want=$2 profile=$3 truth_file=$4 pid rc=0
    shift 4
    "$BIN/sprof_lib" -o "$profile" "$ending" -e wait -o "$truth_file" "$@" 2>>stderr.txt &
    pid=$!
    for _ in $(seq 1 1500); do
        [ -s "$truth_file" ] && break
        kill -0 $pid 2>/dev/null || fail "$profile: the workload ended before reporting"
        sleep 0.01
    done
    [ -s "$truth_file" ] || fail "$profile: the workload did not report within 15 s"
    kill -"$sig" $pid
    wait $pid || rc=$?
    [ $rc -eq "$want" ] || fail "$profile: SIG$sig gave exit status $rc, not $want"
}

kill_when_reported TERM 143 term.sprof term.txt -t 0.95
check_samples "SIGTERM" term.sprof "$(truth term.txt cpu0)" 1 burn
check_ended "SIGTERM" term.sprof "killed by SIGTERM"

# kill -9 as soon as two busy threads reported: nothing can run at the end,
# the periodic parts alone hold the samples (the main thread only waited).
kill_when_reported KILL 137 kill.sprof kill.txt -p 2 -t 0.95
check_samples "kill -9, 2 threads" kill.sprof "$(truth kill.txt cpu0)" 2 burn
check_ended "kill -9" kill.sprof "unknown (no END record: killed?)"

# An exec of itself with a fixed -o FILE: the second image writes FILE's
# .exec1 variant and the first image's profile survives whole.
run 0 "$BIN/sprof_lib" -o exec.sprof "$ending" -e exec -t 0.95 -T 0.95 -o exec.txt
[ -f exec.exec1.sprof ] || fail "exec -o exec.sprof: no exec.exec1.sprof for the second image: $(ls)"
check_samples "exec, first image" exec.sprof "$(truth exec.txt cpu0)" 1 burn
check_ended "exec, first image" exec.sprof "exec (the process went on as another program)"
check_samples "exec, second image" exec.exec1.sprof "$(truth exec.txt cpu1)" 1 burn_again
check_ended "exec, second image" exec.exec1.sprof "exit 0"

# The same with the default name <program>.<pid>.sprof.
mkdir default && cd default
run 0 "$BIN/sprof_lib" "$ending" -e exec -t 0.95 -T 0.95 -o exec.txt
first=$(ls ending.*.sprof | grep -v exec1 || true)
[ -n "$first" ] && [ -f "${first%.sprof}.exec1.sprof" ] || fail "exec, default names: $(ls)"
check_samples "exec, default name, first image" "$first" "$(truth exec.txt cpu0)" 1 burn
check_samples "exec, default name, second image" "${first%.sprof}.exec1.sprof" "$(truth exec.txt cpu1)" 1 burn_again
cd ..

# An exec that fails: the program goes on in the same, readable profile.
run 3 "$BIN/sprof_lib" -o execfail.sprof "$ending" -e execfail -t 0.95 -T 0.5 -o execfail.txt
check_samples "failed exec" execfail.sprof "$(truth execfail.txt cpu0)" 1 burn burn_again
check_ended "failed exec" execfail.sprof "exit 3"
"$BIN/sprof" --info execfail.sprof 2>&1 >/dev/null | grep -q . && fail "failed exec: the profile reads with warnings: $("$BIN/sprof" --info execfail.sprof 2>&1 >/dev/null)"

# vfork children share the program's memory (and its runtime): their _exit
# and exec must leave the program's profile and sampling alone.
run 3 "$BIN/sprof_lib" -o vfork.sprof "$ending" -e vfork -t 0.5 -T 0.45 -o vfork.txt
check_samples "vfork children" vfork.sprof "$(truth vfork.txt cpu0)" 1 burn burn_again
check_ended "vfork children" vfork.sprof "exit 3"

pass "sprof_lib keeps every sample after exit, _exit, exec, SIGSEGV, SIGTERM and kill -9, and says how the program ended"

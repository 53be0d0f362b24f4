# sprof_pt -p: attached to a program already running, for a window in its
# middle, the profile's time shares match what the program measured itself
# in that window (attach_target stamps its cumulative CPU time per function
# after every call); a thread started after the attach is profiled, and a
# child forked after it has a profile of its own; the program runs on
# unchanged (its signal handler, its state, its exit status) after
# --duration, after SIGINT, and when it was stopped before the attach; one
# that ends while attached ends the attach. The
# refusals: no such process, another user's process (nothing stays
# attached), and bad usage.
source "$(dirname "$0")/common.sh" "$1"
chmod 755 "$SCRATCH"
events=task-clock,page-faults

# state PID: its State letter and TracerPid.
state() { awk '/^State:/ {s = $2} /^TracerPid:/ {t = $2} END {print s, t}' "/proc/$1/status"; }
# let_go PID WHAT: nobody traces PID, and it is not in a tracing stop.
let_go() {
    local s
    s=$(state "$1")
    [ "${s#* }" = 0 ] || fail "$2: process $1 is still traced (TracerPid ${s#* })"
    [ "${s% *}" != t ] || fail "$2: process $1 is left in a tracing stop"
}
info_field() { "$BIN/sprof" --info --format json "$1" | python3 -c "import json, sys; print(json.load(sys.stdin)['profiles'][0]['$2'])"; }

# 1. --duration, in the middle of the run: a late thread, a forked child.
"$WORK/attach_target" -t 6 -m 2 -l 1.2 -L 0.4 -f 1.0 -F 0.15 -x 7 -o truth.txt &
target=$!
sleep 0.7
"$BIN/sprof_pt" -q -e "$events" -s 1ms -p "$target" --duration 2.5s 2> pt.err &
pt=$!
sleep 1
kill -USR1 "$target"  # while attached: its own handler gets it
rc=0
wait "$pt" || rc=$?
[ "$rc" = 0 ] || fail "sprof_pt -p --duration exited $rc: $(cat pt.err)"
[ ! -s pt.err ] || fail "sprof_pt -p said: $(cat pt.err)"
let_go "$target" "after --duration"
kill -USR1 "$target"  # after the detach
rc=0
wait "$target" || rc=$?
[ "$rc" = 7 ] || fail "the attached program exited $rc, not its own 7"
grep -qx "usr1 2" truth.txt || fail "the program's SIGUSR1 handler saw $(grep usr1 truth.txt), not 2 signals"
grep -qx "child_status 5" truth.txt || fail "the program's child: $(grep child_status truth.txt), not 5"
pass "the program ran on: its handler got both SIGUSR1s, its child exited 5, it exited 7"

profile=attach_target.$target.sprof
[ -s "$profile" ] || fail "no profile $profile (have: $(ls))"
"$BIN/sprof" --info --format json "$profile" > info.json
"$BIN/sprof" --timeline --format csv "$profile" > timeline.csv
"$BIN/sprof" --format csv "$profile" > report.csv
python3 "$HERE/attach_window.py" truth.txt info.json timeline.csv > window.txt
cat window.txt
python3 "$HERE/check_shares.py" report.csv window.txt "sprof_pt -p" \
    heavy=heavy_cpu_s light=light_cpu_s late_work=late_cpu_s
late_tid=$(awk '/^late_tid/ {print $2}' truth.txt)
python3 - info.json "$late_tid" <<'PY' || fail "the attached profile's header, end or threads are wrong"
import json, sys
p = json.load(open(sys.argv[1]))["profiles"][0]
late = int(sys.argv[2])
assert p["attached"] is True, p["attached"]
assert p["ended"].startswith("detached"), p["ended"]
assert p["exit_status"] is None, p["exit_status"]
tids = {t["tid"]: t["name"] for t in p["threads"]}
assert late in tids, f"the late thread {late} is not among {tids}"
print(f"attached, {p['ended']}; threads {tids}")
PY
"$BIN/sprof" --info "$profile" | grep -Eq "^pid +$target \(attached" || fail "sprof --info does not say the profile was attached"
pass "the attached window's shares match the program's own, the late thread is profiled"

# The child forked after the attach: a profile of its own, from its start.
child=$(ls attach_target.*.sprof | grep -v "^$profile\$" || true)
[ "$(echo "$child" | wc -w)" = 1 ] || fail "not one profile of the forked child: '$child'"
"$BIN/sprof" --format csv "$child" > child.csv
python3 - "$child" child.csv <(info_field "$child" attached) <(info_field "$child" ended) <<'PY' || fail "the child's profile is wrong"
import csv, sys
attached, ended = open(sys.argv[3]).read().strip(), open(sys.argv[4]).read().strip()
rows = {r["function"]: float(r["time_s"]) for r in csv.DictReader(open(sys.argv[2]))}
got = rows.get("child_work", 0.0)
assert attached == "False", f"the child was followed from its start, yet attached={attached}"
print(f"{sys.argv[1]}: child_work {got:.3f} s, ended {ended}")
if ended.startswith("exit"):  # it ended inside the window: all its 0.15 s
    assert ended == "exit 5", ended
    assert abs(got - 0.15) <= 0.015, f"child_work {got:.3f} s, not 0.15 s"
else:  # a busy machine: cut by the detach
    assert ended.startswith("detached") and 0 < got <= 0.165, (ended, got)
PY
pass "the child forked after the attach was followed"

# 2. SIGINT ends the attach (of --tid: the program's one thread); a process
# stopped before the attach stays stopped.
"$WORK/attach_target" -t 6 -x 3 -o truth2.txt &
target=$!
sleep 0.5
"$BIN/sprof_pt" -q -e "$events" -o int.sprof --tid "$target" 2> pt.err &
pt=$!
sleep 1
# A second tracer is refused, naming the first (the process is left to it).
rc=0
"$BIN/sprof_pt" -q -e "$events" -o second.sprof -p "$target" 2> second.err || rc=$?
[ "$rc" = 2 ] && grep -qx "sprof_pt: cannot attach to process $target: it is traced already, by process $pt (a debugger or another profiler)" second.err ||
    fail "a second sprof_pt -p: exit $rc, '$(cat second.err)'"
pass "a second tracer is refused: $(cat second.err)"
kill -INT "$pt"
rc=0
wait "$pt" || rc=$?
[ "$rc" = 0 ] || fail "sprof_pt -p exited $rc after SIGINT: $(cat pt.err)"
let_go "$target" "after SIGINT"
[ "$(info_field int.sprof ended | cut -d' ' -f1)" = detached ] || fail "int.sprof does not end detached"
"$BIN/sprof" --format csv int.sprof | grep -q "^heavy," || fail "sprof_pt --tid: heavy() not in the profile"
pass "SIGINT detached sprof_pt cleanly (exit 0, nothing traced, the profile ends detached)"
kill -STOP "$target"
"$BIN/sprof_pt" -q -e "$events" -o stopped.sprof -p "$target" 2> pt.err &
pt=$!
sleep 0.5
kill -TERM "$pt"
rc=0
wait "$pt" || rc=$?
[ "$rc" = 0 ] || fail "sprof_pt -p of a stopped process exited $rc after SIGTERM: $(cat pt.err)"
let_go "$target" "a stopped process after SIGTERM"
[ "$(state "$target" | cut -d' ' -f1)" = T ] || fail "the process stopped before the attach is not stopped after it: $(state "$target")"
kill -CONT "$target"
rc=0
wait "$target" || rc=$?
[ "$rc" = 3 ] || fail "the program exited $rc after SIGINT's detach, stop and continue, not its own 3"
grep -qx "usr1 0" truth2.txt || fail "the program got a signal it was not sent: $(grep usr1 truth2.txt)"
pass "a process stopped before the attach stays stopped, and runs on after SIGCONT to its own exit 3"

# Two processes that end while attached: sprof_pt ends with the last (exit
# 0), each profile says how its process ended (the second named with its
# pid: one -o name never holds two profiles), and their parent gets their statuses.
"$WORK/attach_target" -t 2.5 -x 9 -o truth3.txt &
first=$!
"$WORK/attach_target" -t 3 -x 8 -o truth4.txt &
second=$!
sleep 0.5
"$BIN/sprof_pt" -q -e "$events" -o ended.sprof -p "$first,$second" || fail "sprof_pt -p of two processes that end failed"
rc=0
wait "$first" || rc=$?
[ "$rc" = 9 ] || fail "the program that ended while attached exited $rc to its parent, not 9"
rc=0
wait "$second" || rc=$?
[ "$rc" = 8 ] || fail "the second program that ended while attached exited $rc to its parent, not 8"
[ "$(info_field ended.sprof ended)" = "exit 9" ] || fail "ended.sprof: ended '$(info_field ended.sprof ended)', not 'exit 9'"
[ "$(info_field "ended.$second.sprof" ended)" = "exit 8" ] || fail "ended.$second.sprof does not end 'exit 8'"
[ "$(info_field "ended.$second.sprof" pid)" = "$second" ] || fail "ended.$second.sprof is not the profile of $second"
pass "two processes that end while attached: profiles ending 'exit 9' and 'exit 8', their parent gets 9 and 8, sprof_pt exits 0"

# 3. Refusals: one line naming the pid and why, exit 2, nothing attached.
# A user: this one, or nobody when this run is root's (setpriv execs the command: $! is its pid).
as_user=()
[ "$UNPRIVILEGED" = 1 ] || as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# refused RC PATTERN ARGS…: sprof_pt ARGS, as a user in /tmp, exits RC with one line matching PATTERN.
refused() {
    local rc=$1 pattern=$2 got=0
    shift 2
    (cd /tmp && "${as_user[@]}" "$BIN/sprof_pt" -q -e "$events" "$@" 2> "$SCRATCH/err.txt") || got=$?
    [ "$got" = "$rc" ] || fail "sprof_pt $*: exit $got, not $rc: $(cat "$SCRATCH/err.txt")"
    [ "$(wc -l < "$SCRATCH/err.txt")" = 1 ] && grep -Eqx -- "$pattern" "$SCRATCH/err.txt" ||
        fail "sprof_pt $*: said '$(cat "$SCRATCH/err.txt")', not '$pattern'"
    pass "sprof_pt $*: '$(cat "$SCRATCH/err.txt")' (exit $rc)"
}
none=$(cat /proc/sys/kernel/pid_max)  # pids are below it
refused 2 "sprof_pt: cannot attach to process $none: no such process" -p "$none"
refused 2 "sprof_pt: cannot attach to thread $none: no such thread" --tid "$none"
root_pid=$(pgrep -u 0 -o . || true)  # the oldest of root's processes
[ -n "$root_pid" ] || fail "no process of root's to be refused"
# The user's own program first: seized, then let go again when the second is refused.
"${as_user[@]}" "$WORK/attach_target" -t 2 -x 4 > /dev/null &
mine=$!
sleep 0.3
refused 2 "sprof_pt: cannot attach to process $root_pid: it belongs to another user \(uid 0\); only root may trace it" \
    -p "$mine,$root_pid"
let_go "$mine" "after a refused attach"
rc=0
wait "$mine" || rc=$?
[ "$rc" = 4 ] || fail "the user's program exited $rc after the refused attach, not its own 4"
refused 2 "sprof_pt: -p/--tid attach to running tasks: give no program as well \(see sprof_pt --help\)" -p 1 true
refused 2 "sprof_pt: --duration ends an attach \(-p, --tid\); a program sprof_pt starts is profiled to its end \(see sprof_pt --help\)" \
    --duration 1s true
refused 2 "sprof_pt: -c is for a program sprof_pt starts, not with -p/--tid \(see sprof_pt --help\)" -c x.prf -p 1
refused 2 "sprof_pt: invalid id in -p 'abc' \(a whole number from 1 to 2147483647\) \(see sprof_pt --help\)" -p abc
pass "sprof_pt -p refuses with the pid and the reason, and leaves nothing attached"

# sprof top on a terminal (tmux: send-keys, capture-pane) while sprof_lib
# profiles the phases workload, which switches between functions at times it
# writes down itself (CLOCK_MONOTONIC): every new phase must be the screen's
# top function within two histogram intervals, and nothing but the phase
# before may be on top until then. sprof top is started before the profile
# exists (it waits), the program's end is told and sprof top exits 0 with
# the last screen left on the terminal: the run's summary, the flat profile
# of the finished profile; its sparklines are checked against the finished
# profile's time line; q quits.
source "$(dirname "$0")/common.sh" "$1"
command -v tmux > /dev/null || { echo "skipped: no tmux"; exit 77; }
export TMUX_TMPDIR=$SCRATCH  # servers of this test's own
# tmux runs a session's command with $SHELL, or without one with the
# account's login shell, which for nobody is nologin: the session would end at
# once (seen on a CI host that starts ctest without SHELL).
export SHELL=/bin/sh
# Each part has a server of its own (SOCKET): kill-server returns before the
# server has gone, and a new session asked of a dying server is created and
# lost with it (seen on a busy CI host: "no server running" ever after).
SOCKET=top
tmux_() { tmux -L "$SOCKET" -f /dev/null "$@"; }
trap 'rc=$?; for SOCKET in top quit; do tmux_ kill-server 2> /dev/null || true; done; finish_test $rc' EXIT

wait_for_screen() {  # TEXT SECONDS
    for _ in $(seq $((${2} * 20))); do
        tmux_ has-session -t top 2> /dev/null || fail "the tmux server of socket $SOCKET is gone"
        tmux_ capture-pane -p -t top | grep -q -- "$1" && return 0
        sleep 0.05
    done
    fail "the screen never showed '$1': $(tmux_ capture-pane -p -t top)"
}

tmux_ new-session -d -s top -x 160 -y 40 \
    "env LANG=C.UTF-8 '$BIN/sprof' top --wait 60 live.sprof; echo \$? > top.rc; sleep 600"
wait_for_screen "waiting for live.sprof" 10
python3 "$HERE/live_view.py" screen top top top.rc screens.txt &
watcher=$!
events=$(choose_events task-clock,page-faults task-clock,page-faults)
"$BIN/sprof_lib" -e "$events" -o live.sprof "$WORK/phases" -r 2 -l 1.5 -o truth.txt -w wall.txt
for _ in $(seq 200); do [ -s top.rc ] && break; sleep 0.05; done
wait "$watcher"
tmux_ capture-pane -p -t top > final.txt
[ "$(cat top.rc)" = 0 ] || fail "sprof top exited $(cat top.rc): $(cat final.txt)"
grep -q "phases (pid [0-9]*) ended: exit 0" final.txt || fail "the end is not told: $(cat final.txt)"
"$BIN/sprof" --timeline --by-function --format csv live.sprof > timeline.csv
python3 "$HERE/live_view.py" check wall.txt screens.txt timeline.csv "sprof_lib/screen" ||
    fail "the screen did not follow the phases: $(cat wall.txt screens.txt)"
python3 "$HERE/live_view.py" sparkline final.txt timeline.csv || fail "sparklines: $(cat final.txt)"
# The last screen is the run's summary: its samples, CPU time and functions the flat profile's.
"$BIN/sprof" --format csv live.sprof > flat.csv
python3 - final.txt flat.csv <<'PY' || fail "the last screen is not the run's summary: $(cat final.txt)"
import csv, re, sys
screen = open(sys.argv[1]).read()
flat = list(csv.DictReader(open(sys.argv[2])))
m = re.search(r"^whole run: [\d.]+-[\d.]+ s, (\d+) samples, ([\d.]+) s of CPU time", screen, re.M)
assert m, "no 'whole run:' line"
samples, seconds = int(m.group(1)), float(m.group(2))
assert samples == sum(int(r["samples"]) for r in flat), (samples, sum(int(r["samples"]) for r in flat))
assert abs(seconds - sum(float(r["time_s"]) for r in flat)) < 0.002, seconds
lines = screen.splitlines()
head = next(i for i, l in enumerate(lines) if l.lstrip().startswith("time%"))
at_function = lines[head].index("function")
shown = {}
for line in lines[head + 1:]:
    if not line.strip():
        break
    shown[line[at_function:].strip()] = int(line.split()[1])  # time%, samples, …
want = {r["function"]: int(r["samples"]) for r in flat}
assert shown == want, (shown, want)
print(f"last screen: the whole run, {samples} samples, {seconds:.3f} s, {len(want)} functions as the flat profile")
PY
pass "sprof top's screen showed each phase within two intervals and told the end"

# q quits at once, while the program still runs.
tmux_ kill-server
SOCKET=quit
rm -f top.rc
tmux_ new-session -d -s top -x 160 -y 40 "'$BIN/sprof' top --wait 60 quit.sprof; echo \$? > top.rc; sleep 600"
"$BIN/sprof_lib" -e "$events" -o quit.sprof "$WORK/phases" -r 2 -l 1.5 &
program=$!
wait_for_screen "interval 1:" 30
tmux_ send-keys -t top q
for _ in $(seq 40); do [ -s top.rc ] && break; sleep 0.05; done
[ "$(cat top.rc 2> /dev/null)" = 0 ] || fail "q did not quit sprof top within 2 s"
kill -0 "$program" 2> /dev/null || fail "the program ended before q could be tried"
wait "$program"
pass "q quits sprof top while the program runs"

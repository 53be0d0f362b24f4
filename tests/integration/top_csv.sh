# sprof top with its output on a pipe: CSV lines appended as each interval
# completes. Under sprof_pt, the phases workload (which writes down when it
# switches functions, CLOCK_MONOTONIC) must show each new phase as an
# interval's top function within two histogram intervals of the switch, and
# the CSV must be --timeline --by-function of the finished profile, row for
# row, with time_pct added. Then a program that execs (sprof_lib writes each
# image's profile: the live view follows into the next one) and one of three
# threads (rows merge the threads' k-th intervals) against the same.
source "$(dirname "$0")/common.sh" "$1"
events=$(choose_events task-clock,page-faults task-clock,page-faults)

# live_csv NAME COLLECTOR ARGS…: sprof top on NAME.sprof in the background
# (it waits for the file), then the collector with -o NAME.sprof.
live_csv() {
    local name=$1 collector=$2
    shift 2
    python3 "$HERE/live_view.py" csv "$name.obs" "$name.csv" -- "$BIN/sprof" top --wait 60 "$name.sprof" \
        2> "$name.err" &
    local watcher=$!
    for _ in $(seq 200); do grep -q "waiting for" "$name.err" 2> /dev/null && break; sleep 0.05; done
    "$BIN/$collector" -e "$events" -o "$name.sprof" "$@"
    wait "$watcher" || fail "sprof top on $name.sprof failed: $(cat "$name.err")"
}

# same_as_timeline LIVE_CSV TIMELINE_CSV [FIRST_ROW]: the live rows are the
# time line's (interval numbers shifted by FIRST_ROW), time_pct each row's
# share of its interval.
same_as_timeline() {
    python3 - "$@" <<'PY'
import csv, sys
# The functions that were ticked in: one that only its own events' records
# found (0 samples, 0 s; startup's faults in ld.so) is left out of the
# comparison (the run's summary, same_as_flat, holds it).
ticked = lambda r: int(r["samples"]) or float(r["time_s"])
live = [r for r in csv.DictReader(open(sys.argv[1])) if r["interval"] != "all" and ticked(r)]  # the run's summary: same_as_flat
offline = [r for r in csv.DictReader(open(sys.argv[2])) if ticked(r)]
shift = int(sys.argv[3]) if len(sys.argv) > 3 else 0
assert len(live) == len(offline) > 0, (len(live), len(offline))
totals = {}
for r in live:
    totals[r["interval"]] = totals.get(r["interval"], 0) + float(r["time_s"])
for got, want in zip(live, offline):
    pct = float(got.pop("time_pct"))
    want["interval"] = str(int(want["interval"]) + shift)
    assert got == want, f"live {got}\n time line {want}"
    assert abs(pct - 100 * float(got["time_s"]) / totals[got["interval"]]) < 0.01, got
print(f"{len(live)} rows as the time line's ({len({r['interval'] for r in live})} intervals)")
PY
}

# same_as_flat LIVE_CSV FLAT_CSV: the rows of interval `all` that end the live
# CSV are the finished profile's flat profile: its functions in its order,
# their samples, time and events; time_pct their share of the run.
same_as_flat() {
    python3 - "$@" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
summary = [r for r in rows if r["interval"] == "all"]
flat = list(csv.DictReader(open(sys.argv[2])))
assert summary, "no summary rows (interval all) at the end"
assert rows[-len(summary):] == summary, "the summary rows are not the last ones"
assert [r["function"] for r in summary] == [r["function"] for r in flat], ([r["function"] for r in summary], [r["function"] for r in flat])
total = sum(float(r["time_s"]) for r in summary)
intervals = [r for r in rows if r["interval"] != "all"]
assert float(summary[0]["end_s"]) == max(float(r["end_s"]) for r in intervals), summary[0]
for got, want in zip(summary, flat):
    for key in want:
        if key in got and key not in ("time_pct",):
            assert got[key] == want[key], f"{got['function']}: {key} {got[key]}, the flat profile has {want[key]}"
    assert abs(float(got["time_pct"]) - 100 * float(got["time_s"]) / total) < 0.01, got
print(f"summary: {len(summary)} functions as the flat profile, {total:.3f} s, to {summary[0]['end_s']} s")
PY
}

live_csv phases sprof_pt "$WORK/phases" -r 2 -l 1.5 -o truth.txt -w wall.txt
grep -q "phases (pid [0-9]*) ended: exit 0" phases.err || fail "the end is not told: $(cat phases.err)"
"$BIN/sprof" --timeline --by-function --format csv phases.sprof > phases-timeline.csv
python3 "$HERE/live_view.py" check wall.txt phases.obs phases-timeline.csv "sprof_pt/csv" ||
    fail "the CSV did not follow the phases: $(cat wall.txt phases.obs)"
same_as_timeline phases.csv phases-timeline.csv || fail "sprof top's CSV differs from the time line"
pass "sprof top's CSV under sprof_pt: each phase within two intervals, the rows of the time line"
"$BIN/sprof" --format csv phases.sprof > phases-flat.csv
same_as_flat phases.csv phases-flat.csv || fail "sprof top's CSV does not end on the run's flat profile"
pass "sprof top's CSV ends on the run's summary: the flat profile"

# An exec: the shell's image, then the phases workload's, each its own file.
live_csv exec sprof_lib /bin/sh -c "exec '$WORK/phases' -r 1 -l 0.6"
grep -q "exec'd: following exec.exec1.sprof" exec.err || fail "the exec is not followed: $(cat exec.err)"
grep -q "ended: exit 0" exec.err || fail "the end is not told: $(cat exec.err)"
"$BIN/sprof" --timeline --by-function --format csv exec.sprof > exec0.csv
"$BIN/sprof" --timeline --by-function --format csv exec.exec1.sprof > exec1.csv
first=$(python3 -c 'import csv, sys; print(len({r["interval"] for r in csv.DictReader(open(sys.argv[1]))}))' exec0.csv)
python3 - exec.csv exec1.csv "$first" <<'PY' || fail "the exec'd image's rows differ from its time line"
import csv, sys
ticked = lambda r: int(r["samples"]) or float(r["time_s"])  # as in same_as_timeline
live = [r for r in csv.DictReader(open(sys.argv[1])) if r["interval"] != "all" and int(r["interval"]) >= int(sys.argv[3]) and ticked(r)]
offline = [r for r in csv.DictReader(open(sys.argv[2])) if ticked(r)]
assert {r["function"] for r in live} >= {"setup", "compress", "decompress"}, {r["function"] for r in live}
assert len(live) == len(offline), (len(live), len(offline))
for got, want in zip(live, offline):
    got.pop("time_pct")
    want["interval"] = str(int(want["interval"]) + int(sys.argv[3]))
    assert got == want, (got, want)
print(f"exec'd image: {len(live)} rows from interval {sys.argv[3]} on, as its own time line")
PY
pass "sprof top follows a program into the image it execs"

# Three threads: a row merges every thread's k-th interval, as --timeline does.
live_csv threads sprof_pt "$WORK/threads" -u 1 -o truth-threads.txt
"$BIN/sprof" --timeline --by-function --format csv threads.sprof > threads-timeline.csv
same_as_timeline threads.csv threads-timeline.csv || fail "the threads' live rows differ from the time line: $(cat threads.err)"
pass "sprof top merges the threads' intervals as the time line does"

# A program killed with SIGKILL writes no END: sprof top sees its pid gone,
# says so, shows the intervals written until then and exits 0.
python3 "$HERE/live_view.py" csv killed.obs killed.csv -- "$BIN/sprof" top --wait 60 killed.sprof 2> killed.err &
watcher=$!
"$BIN/sprof_lib" -e "$events" -o killed.sprof "$WORK/phases" -r 5 -l 1 &
program=$!
for _ in $(seq 600); do [ "$(wc -l < killed.csv 2> /dev/null || echo 0)" -ge 3 ] && break; sleep 0.05; done
kill -9 "$program"
wait "$program" || true
killed_at=$(date +%s.%N)
wait "$watcher" || fail "sprof top on a killed program failed: $(cat killed.err)"
took=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$killed_at" "$(date +%s.%N)")
grep -q "ended: unknown (no END record: killed?)" killed.err || fail "the kill is not told: $(cat killed.err)"
"$BIN/sprof" --timeline --by-function --format csv killed.sprof > killed-timeline.csv 2> /dev/null
same_as_timeline killed.csv killed-timeline.csv || fail "the killed program's live rows differ from the time line"
pass "sprof top tells a program killed with SIGKILL ${took} s after, with every interval it wrote"

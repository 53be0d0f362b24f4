# `sprof --export gecko` of a real run, checked by check_gecko.py (a strict
# check of the Gecko profile format the Firefox Profiler imports: the
# profiler is no Debian package): sprof_lib on two alternating functions of
# known CPU time (the alternate workload, 4 events on 2 slots). Per function
# the samples are the flat report's and their CPU deltas its time, so the
# shares agree with the workload's own accounting; the counters are the
# time line's estimates.
source "$(dirname "$0")/common.sh" "$1"
events=$(choose_events task-clock,page-faults,context-switches,cpu-migrations \
                       task-clock,page-faults,minor-faults,major-faults)
"$BIN/sprof_lib" -e "$events" --slots 2 -o alt.sprof "$WORK/alternate" -t 5 -m 50 -o truth.txt
"$BIN/sprof" --format csv alt.sprof > flat.csv
"$BIN/sprof" --timeline --format csv alt.sprof > timeline.csv
"$BIN/sprof" --export gecko alt.json alt.sprof
python3 "$HERE/check_gecko.py" alt.json > summary.json || fail "the Gecko export breaks the format"
python3 - summary.json flat.csv timeline.csv gecko.csv "$events" <<'PY' || fail "the Gecko export differs from the flat report or the time line"
import csv, json, sys
(p,) = json.load(open(sys.argv[1]))["processes"]
flat = {r["function"]: r for r in csv.DictReader(open(sys.argv[2]))}
rows = list(csv.DictReader(open(sys.argv[3])))
events = sys.argv[5].split(",")
main = p["threads"][0]
assert main["name"] == "GeckoMain" and main["processName"].startswith("alternate (pid "), main["processName"]
functions = {}
for t in p["threads"]:
    for name, f in t["functions"].items():
        g = functions.setdefault(name, {"samples": 0, "cpu_ns": 0})
        g["samples"] += f["samples"]
        g["cpu_ns"] += f["cpu_ns"]
# Gecko samples are ticks: the flat report's functions that were ticked in
# (a function only its own events' records found has no sample to show).
ticked = sorted(name for name, r in flat.items() if int(r["samples"]) > 0)
assert sorted(functions) == ticked, (sorted(functions), ticked)
for name, f in functions.items():
    assert f["samples"] == int(flat[name]["samples"]), (name, f, flat[name]["samples"])
    assert abs(f["cpu_ns"] / 1e9 - float(flat[name]["time_s"])) <= 1e-6, (name, f, flat[name]["time_s"])
with open(sys.argv[4], "w") as out:  # the Gecko view in the flat report's columns
    w = csv.writer(out)
    w.writerow(["function", "samples", "time_s"])
    for name, f in functions.items():
        w.writerow([name, f["samples"], f["cpu_ns"] / 1e9])
# A counter per event: per time-line row whose estimate is known, a point at
# its end with the estimate (the count since the point before), and one at
# its start when the row before did not end there.
for e in events:
    want, last = [], None
    for r in rows:
        if r[e] == "":
            continue
        start, end = float(r["start_s"]) * 1000, float(r["end_s"]) * 1000
        if last is None or abs(last - start) > 1e-6:
            want.append([start, 0])
        want.append([end, float(r[e])])
        last = end
    got = p["counters"][e]
    assert len(got) == len(want) and all(abs(a - b) <= 1e-6 * max(1, abs(b)) for g, w in zip(got, want) for a, b in zip(g, w)), \
        (e, len(got), len(want), got[:4], want[:4])
print(f"gecko: {sum(f['samples'] for f in functions.values())} samples of {len(functions)} functions, "
      f"{len(events)} counters of {len(rows)} rows: as the flat report and the time line")
PY
python3 "$HERE/check_alternate.py" gecko.csv truth.txt "gecko" --shares-only || fail "the Gecko export's shares differ from the truth"
pass "sprof_lib alternate: the Gecko export is in the format, as the flat report and time line, within the truth"

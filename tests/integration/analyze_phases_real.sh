#!/usr/bin/env bash
# sprof --phases on real profiles of the phases workload (setup, then
# compress and decompress alternating), under both collectors: the phases,
# their labels and dominant functions, and every boundary the workload
# reports for itself found within one histogram interval.
source "$(dirname "$0")/common.sh" "$1"

# check_phases PROFILE TRUTH MODE: MODE is "auto" (setup A, compress B,
# decompress C) or "func" (--phases=func:compress: running exactly in the
# compress phases). Boundaries are compared on the profile's CPU-time axis
# (phase_truth.py); it and the truth file's main-thread task-clock seconds
# differ only by the few milliseconds between the start of sampling and main().
check_phases() {
    local profile=$1 truth=$2 mode=$3 what=$1/$3 option=--phases
    [[ $mode == func ]] && option=--phases=func:compress
    "$BIN/sprof" $option --format csv "$profile" >phases.csv
    "$BIN/sprof" --timeline --format csv "$profile" >timeline.csv
    python3 - phases.csv timeline.csv "$truth" "$mode" "$what" "$HERE" <<'PY' || fail "$what"
import csv, sys
phases_csv, timeline_csv, truth_file, mode, what, here = sys.argv[1:]
sys.path.insert(0, here)
from phase_truth import cpu_axis, describe, phase_edges, read_truth, within_one_row
phases = list(csv.DictReader(open(phases_csv)))
truth = read_truth(truth_file)
interval_s, cpu_at = cpu_axis(timeline_csv)
edges = phase_edges(phases, cpu_at)
print(f"{what}: interval {interval_s:.4f} s; phases {describe(phases, edges)}")
print(f"{what}: truth " + " ".join(f"{n}[{a:.3f},{b:.3f}]" for n, a, b in truth))
if mode == "auto":
    assert len(phases) == 5, f"{len(phases)} phases, expected 5"
    labels = [p["label"] for p in phases]
    a, b, c = labels[0], labels[1], labels[2]
    assert len({a, b, c}) == 3 and labels == [a, b, c, b, c], f"labels {labels}, expected A B C B C"
    assert [p["dominant_function"] for p in phases] == [n for n, _, _ in truth], "dominant functions"
    expected = [(s, e) for _, s, e in truth]
else:
    running = [e for p, e in zip(phases, edges) if p["label"] == "running"]
    assert [p["label"] for p in phases] == ["idle", "running", "idle", "running", "idle"], \
        f"labels {[p['label'] for p in phases]}"
    assert [p["dominant_function"] for p in phases if p["label"] == "running"] == ["compress"] * 2
    edges = running
    expected = [(s, e) for n, s, e in truth if n == "compress"]
assert len(edges) == len(expected)
for got, want in zip(edges, expected):
    assert within_one_row(got, want, cpu_at, interval_s), \
        f"phase {got[0]:.3f}-{got[1]:.3f} s, truth {want[0]:.3f}-{want[1]:.3f} s: not at the rows that hold the truth's ends"
PY
    pass "$what"
}

# 4 events on 2 slots; 10 samples of 10 ms per interval, so a phase of 0.8 s
# spans 8 intervals. Only events the workload determines: its truth knows
# nothing of context switches, which follow whatever else runs on the machine.
events=task-clock,page-faults,minor-faults,major-faults
"$BIN/sprof_lib" -e $events --slots 2 -s 10ms -H 10 -o lib.sprof "$WORK/phases" -r 2 -l 0.8 -o lib-truth.txt
check_phases lib.sprof lib-truth.txt auto
check_phases lib.sprof lib-truth.txt func

# The phase plot of a real profile is a real PNG with something drawn in it.
"$BIN/sprof" --phases --plot phases.png lib.sprof >/dev/null 2>plot.err
[[ ! -s plot.err ]] || fail "the plot printed: $(cat plot.err)"
[[ $(head -c 8 phases.png | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "phases.png is not a PNG"
size=$(stat -c %s phases.png)
((size > 10000)) || fail "phases.png has only $size bytes: too small to hold a plot"
pass "phase plot: PNG of $size bytes"

"$BIN/sprof_pt" -e $events --slots 2 -s 10ms -H 10 -o pt.sprof "$WORK/phases" -r 2 -l 0.8 -o pt-truth.txt
check_phases pt.sprof pt-truth.txt auto
check_phases pt.sprof pt-truth.txt func

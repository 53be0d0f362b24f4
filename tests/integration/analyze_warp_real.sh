#!/usr/bin/env bash
# sprof --calibrate / --predict on real profiles: fit this machine's seconds
# per event on runs of different sizes, predict a held-out run, and compare
# with the CPU time the workload measured for itself.
#
# Without a hardware PMU the only countable events that cost CPU time are page
# faults (context-switches is recorded too: the scheduler's, whose count grows
# with the machine's load, and so no regressor). The model has no term for pure
# computation, so the workloads are fault-bound: bench_fixed_work -c 0 maps,
# touches and unmaps -f thousand fresh pages and nothing else.
source "$(dirname "$0")/common.sh" "$1"

events=task-clock,page-faults,context-switches
# profile NAME THOUSAND_PAGES: bench_fixed_work under sprof_lib to NAME.sprof;
# its times to NAME.cpu (the test reads its main thread's task-clock, the
# clock the profile's time is on; the process's CPU time also holds
# sprof_lib's writer thread, whose cost — resolving the samples' source
# lines — is no part of the work the profile times).
profile() {
    "$BIN/sprof_lib" -e $events -s 10ms -H 10 -o "$1.sprof" "$WORK/bench_fixed_work" -c 0 -f "$2" -o "$1.cpu"
}
# The cost of a fault drifts by tens of percent within seconds on a shared
# machine, so calibration runs and held-out runs (300 thousand pages, never
# used in the fit) interleave over three rounds and see the same drift; a
# run of 0 pages measures the rounds without their faults.
calibration=()
for round in 1 2 3; do
    profile empty$round 0
    for pages in 100 500 200 400; do
        profile cal$round-$pages $pages
        calibration+=("cal$round-$pages.sprof")
    done
    profile held$round 300
done

"$BIN/sprof" --calibrate "${calibration[@]}" -o machine.json
# The three held-out profiles are merged into one prediction.
"$BIN/sprof" --predict machine.json --format json held1.sprof held2.sprof held3.sprof >prediction.json

python3 - machine.json prediction.json <<'PY' || fail "prediction"
import json, sys
model = json.load(open(sys.argv[1]))
prediction = json.load(open(sys.argv[2]))
def cpu(name):
    times = dict(line.split() for line in open(name + ".cpu"))
    return float(times["task_clock_s"])
cost = model["seconds_per_event"]
print(f"model: {cost}, {model['observations']} observations, "
      f"rms error {model['rms_error_s']:.4f} s ({100 * model['rms_relative_error']:.1f} %)")
# A page fault costs ~1-3 us here; anything far off means the fit went wrong.
assert 2e-7 < cost["page-faults"] < 2e-5, f"seconds per page fault {cost['page-faults']}"
assert "context-switches" not in cost, "the scheduler's context switches were fitted"
total = next(r for r in prediction["prediction"] if r["phase"] == "total")
predicted = total["predicted_s"]
# What the held-out runs' 900 thousand faults cost by their own clock: their
# main thread's task-clock less that of runs that fault nowhere.
known = sum(cpu(f"held{r}") - cpu(f"empty{r}") for r in (1, 2, 3))
error = predicted - known
# The fit's rms relative error is how far one phase strays from the model on
# this machine: allow three times that, plus one 10 ms sample period per
# profile, the resolution of the profiles' time.
tolerance = 3 * model["rms_relative_error"] * known + 3 * 0.010
print(f"held-out runs: known {known:.3f} s, profiled {total['measured_s']:.3f} s, predicted {predicted:.3f} s; "
      f"error {error:+.3f} s ({100 * error / known:+.1f} %), tolerance {tolerance:.3f} s")
assert abs(error) <= tolerance, "prediction outside the fit's own error"
PY
pass "WARP prediction of a held-out run"

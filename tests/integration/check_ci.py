#!/usr/bin/env python3
"""Checks `sprof --ci --format csv` of a selfcount run against the truth the
workload counted itself: every event column X has X_low and X_high (so has
every rate), every interval of the workload's functions is known and holds
its estimate, and the intervals cover the truth as 95 % intervals should.

A 95 % interval misses one time in 20, so some misses are allowed: of the
n quantities whose truth is not 0 (task-clock and cpu-clock are one
quantity), at most the number m that calibrated intervals exceed with a
probability of at most `--false-alarm` (binomial, n trials of 5 %: for
n = 13 and 1 %, m = 3; a fixed 10 % allowed one miss and failed 13.5 % of
the runs of right intervals). None may miss by more than its own
half-width beyond its bound (what too narrow intervals, or a biased
estimate, would show). The benchmark (bench/RESULTS.md, confidence
intervals) checks the coverage itself over many runs.

usage: check_ci.py REPORT.csv TRUTH.txt EVENTS LABEL [--false-alarm 0.01]
"""
import argparse
import csv
import math
import sys

FUNCTIONS = ("compute", "minor", "major", "switcher")
# Events that count one quantity: their estimates err together, so a miss
# of both is one miss (counted twice, one 2 σ miss of a function's CPU time
# failed a run whose other 13 intervals held).
SAME_QUANTITY = {"cpu-clock": "task-clock"}


def allowed_misses(n, false_alarm, miss=0.05):
    """The fewest misses m with P(more than m of n miss) <= false_alarm."""
    tail = 1.0
    for m in range(n + 1):
        tail -= math.comb(n, m) * miss**m * (1 - miss) ** (n - m)
        if tail <= false_alarm:
            return m
    return n


def number(cell):
    return None if cell in (None, "", "-") else float(cell)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("truth")
    ap.add_argument("events")
    ap.add_argument("label")
    ap.add_argument("--false-alarm", type=float, default=0.01)
    a = ap.parse_args()
    events = a.events.split(",")
    truth = {}
    for line in open(a.truth):
        function, key, value = line.split()
        truth.setdefault(function, {})[key] = float(value)
    reader = csv.DictReader(open(a.report))
    columns = reader.fieldnames
    rows = {r["function"]: r for r in reader}
    errors = []
    for name in [c for c in columns if c in events or c.endswith("_per_ms") or c.endswith("_per_s")]:
        for bound in ("_low", "_high"):
            if name + bound not in columns:
                errors.append(f"no column {name + bound} beside {name}")
    if errors:
        sys.exit(f"FAIL {a.label}: " + "; ".join(errors))

    checked, missed = set(), set()  # (function, quantity)
    for function in FUNCTIONS:
        if function not in rows:
            sys.exit(f"FAIL {a.label}: {function} missing from the report (have {sorted(rows)})")
        r = rows[function]
        for event in events:
            t = truth[function][event]
            est, low, high = number(r[event]), number(r[event + "_low"]), number(r[event + "_high"])
            if est is None or low is None or high is None:
                errors.append(f"{function} {event}: estimate {est}, interval [{low}, {high}] unknown")
                continue
            if not low <= est <= high:
                errors.append(f"{function} {event}: estimate {est:.6g} outside its interval [{low:.6g}, {high:.6g}]")
            inside = low <= t <= high
            line = f"{function:9s} {event:17s} truth {t:14.6g}  estimate {est:14.6g}  [{low:.6g}, {high:.6g}]"
            print(line + ("" if inside else "  MISSED"))
            if t == 0:
                if not inside:
                    errors.append(f"{function} {event}: none happened, the interval [{low:.6g}, {high:.6g}] excludes 0")
                continue
            quantity = (function, SAME_QUANTITY.get(event, event))
            checked.add(quantity)
            if inside:
                continue
            missed.add(quantity)
            half = (high - low) / 2
            beyond = low - t if t < low else t - high
            if beyond > half:
                errors.append(f"{function} {event}: truth {t:.6g} is {beyond:.6g} beyond [{low:.6g}, {high:.6g}], "
                              f"more than the half-width {half:.6g}")
    print(f"{a.label}: {len(checked) - len(missed)} of {len(checked)} quantities' intervals cover the truth")
    allowed = allowed_misses(len(checked), a.false_alarm)
    if not checked or len(missed) > allowed:
        errors.append(f"{len(missed)} of {len(checked)} quantities' intervals miss the truth (at most {allowed} may: "
                      f"right 95 % intervals miss more than that with probability {a.false_alarm:g})")
    if errors:
        sys.exit(f"FAIL {a.label}: " + "; ".join(errors))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks `sprof --ci --format csv` of a selfcount run against the truth the
workload counted itself: every event column X has X_low and X_high (so has
every rate), every interval of the workload's functions is known and holds
its estimate, and the intervals cover the truth as 95 % intervals should.

A 95 % interval misses now and then, so single misses are allowed: at most
`--max-miss` of the quantities whose truth is not 0 may miss (task-clock
and cpu-clock are one quantity), and none by
more than its own half-width beyond its bound (what too narrow intervals, or
a biased estimate, would show).

usage: check_ci.py REPORT.csv TRUTH.txt EVENTS LABEL [--max-miss 0.1]
"""
import argparse
import csv
import sys

FUNCTIONS = ("compute", "minor", "major", "switcher")
# Events that count one quantity: their estimates err together, so a miss
# of both is one miss (counted twice, one 2 σ miss of a function's CPU time
# failed a run whose other 13 intervals held).
SAME_QUANTITY = {"cpu-clock": "task-clock"}


def number(cell):
    return None if cell in (None, "", "-") else float(cell)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("truth")
    ap.add_argument("events")
    ap.add_argument("label")
    ap.add_argument("--max-miss", type=float, default=0.1)
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
    if not checked or len(missed) > a.max_miss * len(checked):
        errors.append(f"{len(missed)} of {len(checked)} quantities' intervals miss the truth (at most {a.max_miss:.0%} may)")
    if errors:
        sys.exit(f"FAIL {a.label}: " + "; ".join(errors))


if __name__ == "__main__":
    main()

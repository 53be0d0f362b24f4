#!/usr/bin/env python3
"""Checks `sprof --compare BEFORE --ci --format csv AFTER` of two runs of the
alternate workload against the truth each run counted itself (heavy_cpu_s,
light_cpu_s, heavy_faults, light_faults).

For heavy() and light(), time and page faults: each run's value within its
95 % interval, the true delta within the delta's interval (both: at most
the misses calibrated intervals allow, check_ci.allowed_misses, none by
more than its own half-width). Significance: light()'s faults (0 in every
run) never; heavy()'s faults exactly when their truth changed by more than
a tenth; with --unchanged (the same run twice) nothing of either function.

usage: check_compare.py REPORT.csv BEFORE.txt AFTER.txt LABEL [--unchanged]
"""
import argparse
import csv
import sys

from check_ci import allowed_misses, number

# Function, report column, truth key.
VALUES = [("heavy", "time_s", "heavy_cpu_s"), ("light", "time_s", "light_cpu_s"),
          ("heavy", "page-faults", "heavy_faults"), ("light", "page-faults", "light_faults")]


def truth_of(path):
    return {k: float(v) for k, v in (line.split() for line in open(path) if line.strip())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("label")
    ap.add_argument("--unchanged", action="store_true", help="the same run twice: no change may be marked")
    a = ap.parse_args()
    before, after = truth_of(a.before), truth_of(a.after)
    rows = {r["function"]: r for r in csv.DictReader(open(a.report))}
    for fn in ("heavy", "light"):
        if fn not in rows or rows[fn]["present"] != "both":
            sys.exit(f"FAIL {a.label}: {fn} is not in both runs: {rows.get(fn, {}).get('present')}")

    errors, misses, checked = [], [], 0
    for fn, col, key in VALUES:
        r = rows[fn]
        truths = {"before": before[key], "after": after[key], "delta": after[key] - before[key]}
        for part, t in truths.items():
            est = number(r[f"{col}_{part}"])
            low, high = number(r[f"{col}_{part}_low"]), number(r[f"{col}_{part}_high"])
            if est is None or low is None or high is None:
                errors.append(f"{fn} {col}_{part}: {est} in [{low}, {high}] unknown")
                continue
            checked += 1
            line = f"{fn} {col}_{part}: {est:.4g} in [{low:.4g}, {high:.4g}], truth {t:.4g}"
            print(f"{a.label}: {line}")
            if not low <= t <= high:
                misses.append(line)
                half = (high - low) / 2
                if t < low - half or t > high + half:
                    errors.append(line + ": misses by more than its half-width")
        sig = r[f"{col}_significant"]
        if a.unchanged or (fn, col) == ("light", "page-faults"):
            want = "no"
        elif col == "page-faults":
            want = "yes" if abs(truths["delta"]) > 0.1 * max(truths["before"], 1) else "no"
        else:
            continue  # the time's truth changes a little with the faults: either may hold
        if sig != want:
            errors.append(f"{fn} {col}: significant {sig!r}, but the truth changed by {truths['delta']:+.4g}")
    allowed = allowed_misses(checked, 0.01)
    if len(misses) > allowed:
        errors.append(f"{len(misses)} of {checked} intervals miss their truth (at most {allowed}): " + "; ".join(misses))
    if errors:
        sys.exit(f"FAIL {a.label}: " + "; ".join(errors))
    print(f"{a.label}: {checked - len(misses)} of {checked} intervals hold the truth; significance as the truth says")


if __name__ == "__main__":
    main()

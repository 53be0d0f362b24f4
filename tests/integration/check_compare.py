#!/usr/bin/env python3
"""Checks `sprof --compare BEFORE --ci --format csv AFTER` of two runs of the
alternate workload against the truth each run counted itself (heavy_cpu_s,
light_cpu_s, heavy_faults, light_faults).

For heavy() and light(), time and page faults: each run's value within its
95 % interval, the true delta within the delta's interval (both: at most
the misses calibrated intervals allow, check_ci.allowed_misses, none by
more than its own half-width). Significance: a change marked must be real
(the truth moved, the same way: light()'s faults, 0 in every run, never),
and a true change wider than the delta's whole interval must be marked
(heavy()'s faults, 256 → 2048 pages a call).

usage: check_compare.py REPORT.csv BEFORE.txt AFTER.txt LABEL
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
        # A change marked is real: the truth moved, the same way. A change
        # wider than the delta's whole interval must be marked.
        sig, est = r[f"{col}_significant"], number(r[f"{col}_delta"])
        low, high = number(r[f"{col}_delta_low"]), number(r[f"{col}_delta_high"])
        true = truths["delta"]
        if sig == "yes" and (true == 0 or est * true <= 0):
            errors.append(f"{fn} {col}: marked significant ({est:+.4g}), but the truth changed by {true:+.4g}")
        if sig != "yes" and None not in (low, high) and abs(true) > high - low:
            errors.append(f"{fn} {col}: not marked, but the truth changed by {true:+.4g}, more than "
                          f"the delta's interval [{low:.4g}, {high:.4g}] is wide")
    allowed = allowed_misses(checked, 0.01)
    if len(misses) > allowed:
        errors.append(f"{len(misses)} of {checked} intervals miss their truth (at most {allowed}): " + "; ".join(misses))
    if errors:
        sys.exit(f"FAIL {a.label}: " + "; ".join(errors))
    marked = [f"{fn} {col}" for fn, col, _ in VALUES if rows[fn][f"{col}_significant"] == "yes"]
    print(f"{a.label}: {checked - len(misses)} of {checked} intervals hold the truth; marked changed: {marked}")


if __name__ == "__main__":
    main()

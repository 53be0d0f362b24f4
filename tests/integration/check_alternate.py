#!/usr/bin/env python3
"""Compares a `sprof --format csv` report of the alternate workload with the
truth file the workload wrote about itself: the time shares of heavy() and
light() between the two of them, and heavy()'s page faults.

usage: check_alternate.py REPORT.csv TRUTH.txt LABEL [--share-pp 3] [--faults-pct 10] [--shares-only]
"""
import argparse
import csv
import sys


def check_faults(a, truth, rows, errors):
    """heavy() within --faults-pct of its faults; light(), which faults
    never, within 1 % of the run's faults (where the issue's targets put a
    function holding under 5 % of a run)."""
    got = {}
    for fn in ("heavy", "light"):
        cell = rows[fn][a.faults_event]
        if cell in ("", "-"):
            errors.append(f"{a.label}: {fn} {a.faults_event} unknown")
            return
        got[fn] = float(cell)
    true_faults = truth["heavy_faults"]
    err = 100 * (got["heavy"] - true_faults) / true_faults
    line = f"{a.label}: heavy {a.faults_event} {got['heavy']:.0f} (truth {true_faults:.0f}, {err:+.1f}%)"
    print(line)
    if abs(err) > a.faults_pct:
        errors.append(line + f" off by more than {a.faults_pct}%")
    run_faults = sum(float(r[a.faults_event]) for r in rows.values() if r[a.faults_event] not in ("", "-"))
    light_err = abs(got["light"] - truth["light_faults"])
    line = f"{a.label}: light {a.faults_event} {got['light']:.0f} (truth {truth['light_faults']:.0f}; run {run_faults:.0f})"
    print(line)
    if light_err > 0.01 * run_faults:
        errors.append(line + " off by more than 1 % of the run's")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("truth")
    ap.add_argument("label")
    ap.add_argument("--share-pp", type=float, default=3.0, help="time share tolerance, percentage points")
    ap.add_argument("--faults-pct", type=float, default=10.0, help="page fault tolerance, percent of truth")
    ap.add_argument("--faults-event", default="page-faults")
    ap.add_argument("--shares-only", action="store_true", help="a report without events per function")
    a = ap.parse_args()

    truth = dict(line.split() for line in open(a.truth) if line.strip())
    truth = {k: float(v) for k, v in truth.items()}
    rows = {r["function"]: r for r in csv.DictReader(open(a.report))}
    for fn in ("heavy", "light"):
        if fn not in rows:
            sys.exit(f"FAIL {a.label}: function {fn} missing from the report (have {sorted(rows)})")

    # heavy() gets its fresh pages through mmap/madvise/munmap: the workload's
    # clock counts that time in heavy(), a flat profile in those libc
    # functions, so heavy's share is its own time plus theirs.
    got_s = {"heavy": float(rows["heavy"]["time_s"]), "light": float(rows["light"]["time_s"])}
    for name, r in rows.items():
        if any(call in name for call in ("mmap", "madvise")):
            got_s["heavy"] += float(r["time_s"])
    total_cpu = truth["heavy_cpu_s"] + truth["light_cpu_s"]
    errors = []
    for fn in ("heavy", "light"):
        true_share = 100 * truth[f"{fn}_cpu_s"] / total_cpu
        got_share = 100 * got_s[fn] / (got_s["heavy"] + got_s["light"])
        line = f"{a.label}: {fn} time share {got_share:.2f}% (truth {true_share:.2f}%)"
        if abs(got_share - true_share) > a.share_pp:
            errors.append(line + f" off by more than {a.share_pp} points")
        print(line)
    if not a.shares_only:
        check_faults(a, truth, rows, errors)
    if errors:
        sys.exit("FAIL " + "; ".join(errors))


if __name__ == "__main__":
    main()

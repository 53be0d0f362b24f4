#!/usr/bin/env python3
"""Compares the time shares of named functions in a `sprof --format csv`
report with the CPU seconds a workload measured for them itself.

usage: check_shares.py REPORT.csv TRUTH.txt LABEL FUNC=TRUTH_KEY… [--share-pp 3]
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("truth")
    ap.add_argument("label")
    ap.add_argument("pairs", nargs="+", help="function=truth_key")
    ap.add_argument("--share-pp", type=float, default=3.0)
    a = ap.parse_args()

    truth = {k: float(v) for k, v in (line.split() for line in open(a.truth) if line.strip())}
    rows = {r["function"]: r for r in csv.DictReader(open(a.report))}
    pairs = [p.split("=", 1) for p in a.pairs]
    total_true = sum(truth[key] for _, key in pairs)
    total_got = sum(float(rows[fn]["time_s"]) for fn, _ in pairs if fn in rows)
    errors = []
    for fn, key in pairs:
        if fn not in rows:
            errors.append(f"{fn} missing from the report")
            continue
        want = 100 * truth[key] / total_true
        got = 100 * float(rows[fn]["time_s"]) / total_got
        line = f"{a.label}: {fn} {got:.2f}% of the listed functions' time (truth {want:.2f}%)"
        print(line)
        if abs(got - want) > a.share_pp:
            errors.append(line + f", off by more than {a.share_pp} points")
    if errors:
        sys.exit(f"FAIL {a.label}: " + "; ".join(errors))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Summarises bench/busy_accuracy's runs as Markdown: per collector and
estimator how many runs passed the alternate check, and the distribution of
its two errors (heavy's page faults in % of the truth, heavy's time share in
points). The verdicts are check_alternate.py's own: a check passed when it
printed its three lines and no "FAIL LABEL" line.

usage: busy_accuracy_report.py LOG_DIR RUNS
"""
import re
import statistics
import sys

COLLECTORS = ("sprof_lib", "sprof_pt")
ESTIMATORS = ("coverage", "carry")
# check_alternate.py's lines, e.g. "sprof_pt/carry: heavy time share 74.10% (truth 75.02%)"
SHARE = re.compile(r"^(\S+): heavy time share ([\d.]+)% \(truth ([\d.]+)%\)")
LIGHT = re.compile(r"^(\S+): light time share ")
FAULTS = re.compile(r"^(\S+): heavy page-faults \d+ \(truth \d+, ([+-][\d.]+)%\)")


def read_run(logs, collector, run):
    """{estimator: (passed, fault error %, share error pp)}; None for an error not printed."""
    out = open(f"{logs}/{collector}.{run}.out").read().splitlines()
    err = open(f"{logs}/{collector}.{run}.err").read().splitlines()
    result = {}
    for est in ESTIMATORS:
        label = f"{collector}/{est}"
        share = faults = None
        light = False
        for line in out:
            if (m := SHARE.match(line)) and m[1] == label:
                share = float(m[2]) - float(m[3])
            elif (m := LIGHT.match(line)) and m[1] == label:
                light = True
            elif (m := FAULTS.match(line)) and m[1] == label:
                faults = float(m[2])
        failed = any(line.startswith(f"FAIL {label}:") for line in err)
        result[est] = (share is not None and light and faults is not None and not failed, faults, share)
    return result


def spread(values, unit):
    """'median |x| / worst x' of the values printed, with how many are missing."""
    got = [v for v in values if v is not None]
    if not got:
        return "—"
    worst = max(got, key=abs)
    text = f"{statistics.median(abs(v) for v in got):.1f} / {worst:+.1f} {unit}"
    return text + (f" ({len(values) - len(got)} runs printed none)" if len(got) < len(values) else "")


def main():
    logs, runs = sys.argv[1], int(sys.argv[2])
    print("| collector | estimator | checks passed | page faults error, median \\|e\\| / worst | heavy time share error, median \\|e\\| / worst |")
    print("|---|---|---:|---|---|")
    tests_passed = {}
    for collector in COLLECTORS:
        per_run = [read_run(logs, collector, run) for run in range(1, runs + 1)]
        tests_passed[collector] = sum(all(r[est][0] for est in ESTIMATORS) for r in per_run)
        for est in ESTIMATORS:
            passed = sum(r[est][0] for r in per_run)
            faults = spread([r[est][1] for r in per_run], "%")
            share = spread([r[est][2] for r in per_run], "pp")
            print(f"| {collector} | {est} | {passed} of {runs} | {faults} | {share} |")
    print()
    for collector in COLLECTORS:
        verdict = "met" if tests_passed[collector] == runs else "**missed**"
        test = "lib_alternate" if collector == "sprof_lib" else "pt_alternate"
        print(f"* {test} (both estimators) passed {tests_passed[collector]} of {runs} runs (target: {runs} of {runs}): {verdict}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Calibration of `sprof --ci`: how often a 95 % interval covers the truth.

Many runs of workloads that count their own events (bench/truth_runs.py),
by both collectors, with the default (shuffled) rotation; each run read with
both estimators. Every (run, function, event) whose truth is known is one
case. Writes the raw cases to DATA_DIR/calibration.csv and prints a Markdown
section on stdout.

usage: calibration.py BUILD_DIR DATA_DIR RUNS
"""
import math
import os
import statistics
import sys

import measure
import truth_runs as tr

TARGET = 0.90  # the share of 95 % intervals that must cover the truth, per estimator


def plan(runs):
    """(workload, collector) of each run: selfcount steady, selfcount with a
    rhythm of the rotation's period, alternate; the collectors in turn."""
    kinds = ("selfcount", "rhythm", "alternate")
    collectors = ("sprof_lib", "sprof_pt")
    return [(kinds[i % 3], collectors[(i // 3) % 2]) for i in range(runs)]


def one_run(build, data_dir, i, kind, collector, events):
    run_dir = os.path.join(data_dir, f"run{i}")
    os.makedirs(run_dir, exist_ok=True)
    tags = {"run": i, "kind": kind}
    if kind == "alternate":
        alt_events = [e for e in ("task-clock", "page-faults", "minor-faults", "major-faults") if e in events]
        return tr.alternate_run(build, collector, alt_events, 2, "shuffled", 4, run_dir, call_ms=50, tags=tags)
    # 10 ms sampling; a round of the rotation is len(events)/2 samples.
    rhythm = 10 * len(events) // 2 if kind == "rhythm" else 0
    return tr.selfcount_run(build, collector, events, 2, "shuffled", 4, run_dir, rhythm_ms=rhythm, tags=tags)


def share(rows):
    return sum(tr.covered(r) for r in rows) / len(rows) if rows else None


def pct(x):
    return "–" if x is None else f"{100 * x:.1f} %"


def rms_z(rows):
    """The root mean square of (estimate − truth) / sd, sd = the interval's
    upper half-width / 1.96: 1 when the intervals are as wide as the errors
    need, below 1 when they are wider (conservative)."""
    z = [(r["estimate"] - r["truth"]) / ((r["high"] - r["estimate"]) / 1.96) for r in rows
         if r["high"] is not None and r["estimate"] is not None and r["high"] > r["estimate"]]
    return f"{math.sqrt(sum(v * v for v in z) / len(z)):.2f}" if z else "–"


def relative_half_width(rows):
    widths = [(r["high"] - r["low"]) / 2 / r["estimate"] for r in rows
              if r["low"] is not None and r["estimate"] and r["estimate"] > 0]
    return statistics.median(widths) if widths else None


def report(rows, runs, events, failures):
    print("Each run profiles a workload that counts its own events (the truth) with every counting event this "
          f"machine has ({', '.join(f'`{e}`' for e in events)}) on 2 slots, sampling every 10 ms, the live sets in "
          "the default shuffled rotation; `sprof --ci --format csv --estimator coverage|carry` gives each "
          "function's estimate and its 95 % interval. A case is one (run, function, event); it is covered when "
          "low ≤ truth ≤ high (an unknown interval counts as not covered). Workloads, in turn:\n")
    print("* `selfcount` — four functions (calls of 50, 100, 50 and 200 ms: 5–20 sampling intervals) with their "
          "own rates of every software event, each counted by the program's own perf_event_open counters around "
          "each call;")
    print(f"* `selfcount -r {10 * len(events) // 2}` — the same, every event made in the first half of each "
          f"{10 * len(events) // 2} ms of CPU time only: a rhythm of one round of the rotation;")
    print("* `alternate` — heavy() and light() (3:1 CPU time, 50 ms light calls), CPU time and minor faults "
          "from the program's own clocks; 4 events on 2 slots.\n")
    print(f"{runs} runs (4 s of CPU time each), `sprof_lib` and `sprof_pt` in turn"
          + (f"; {len(failures)} failed: {'; '.join(failures)}" if failures else "") + ".\n")
    nonzero = [r for r in rows if r["truth"] > 0]
    zero = [r for r in rows if r["truth"] == 0]
    print("### Coverage per estimator\n")
    print("| estimator | cases (truth > 0) | covered | unknown | median half-width / estimate | cases with truth 0: interval holds 0 |")
    print("|---|---:|---:|---:|---:|---:|")
    for est in tr.ESTIMATORS:
        sel = [r for r in nonzero if r["estimator"] == est]
        unknown = sum(r["low"] is None for r in sel)
        z = [r for r in zero if r["estimator"] == est]
        print(f"| {est} | {len(sel)} | {pct(share(sel))} | {unknown} | {pct(relative_half_width(sel))} | "
              f"{pct(share(z))} of {len(z)} |")
    print("\n### Coverage per event (cases with truth > 0)\n")
    print("*rms z*: the root mean square of (estimate − truth) / sd, the sd read off the interval (upper "
          "half-width / 1.96): 1 when the intervals are exactly as wide as the errors, below 1 when wider.\n")
    print("| event | " + " | ".join(f"{est}: cases, covered, rms z" for est in tr.ESTIMATORS) + " |")
    print("|---|" + "---:|" * len(tr.ESTIMATORS))
    for event in events:
        cells = []
        for est in tr.ESTIMATORS:
            sel = [r for r in nonzero if r["estimator"] == est and r["event"] == event]
            cells.append(f"{len(sel)}, {pct(share(sel))}, {rms_z(sel)}" if sel else "none (truth 0 everywhere)")
        print(f"| `{event}` | " + " | ".join(cells) + " |")
    print("\n### Coverage per workload (cases with truth > 0)\n")
    print("| workload | " + " | ".join(f"{est}: covered, rms z" for est in tr.ESTIMATORS) + " |")
    print("|---|" + "---:|" * len(tr.ESTIMATORS))
    for kind in ("selfcount", "rhythm", "alternate"):
        cells = []
        for est in tr.ESTIMATORS:
            sel = [r for r in nonzero if r["estimator"] == est and r["kind"] == kind]
            cells.append(f"{pct(share(sel))}, {rms_z(sel)}")
        print(f"| {kind} | " + " | ".join(cells) + " |")
    print("\n### Target\n")
    for est in tr.ESTIMATORS:
        s = share([r for r in nonzero if r["estimator"] == est])
        ok = s is not None and s >= TARGET
        print(f"* {est}: {pct(s)} of the 95 % intervals cover the truth (target ≥ {TARGET:.0%}): "
              f"{'met' if ok else '**missed**'}")
    print()


def main():
    build, data_dir, runs = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    events = tr.machine_events()
    rows, failures = [], []
    for i, (kind, collector) in enumerate(plan(runs)):
        try:
            rows += one_run(build, data_dir, i, kind, collector, events)
        except measure.Failed as e:
            failures.append(f"run {i} ({kind}, {collector}): {e}")
    tr.write_csv(rows, os.path.join(data_dir, "calibration.csv"))
    report(rows, runs, events, failures)


if __name__ == "__main__":
    main()

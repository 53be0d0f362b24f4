#!/usr/bin/env python3
"""Per-function accuracy with every counting event this machine has on 2 slots.

selfcount's four functions (calls of 5 to 20 sampling intervals)
count every event themselves with their own perf_event_open counters; the
profile's per-function estimates are compared with those counts, for both
estimators, with the round-robin rotation (before) and the shuffled one
(after).

The error of a (function, event) is |estimate − truth| / truth, over the
pairs whose truth is at least MIN_TRUTH events (a function that makes an
event only by accident — compute()'s one stray page fault — has no
meaningful relative error; those pairs are listed by their absolute counts
instead). Published multiplexing estimators to beat: BayesPerf 7.6 %,
CounterMiner 7.7 % mean error.

usage: event_accuracy.py BUILD_DIR DATA_DIR RUNS SECONDS [BASELINE_SPROF]
BASELINE_SPROF: an older `sprof` (e.g. built from the commit before the
boundary-free coverage estimate), to read the same profiles with too.
"""
import os
import statistics
import sys

import truth_runs as tr

MIN_TRUTH = tr.MIN_TRUTH
TARGET_PCT = 5.0
ROTATIONS = tr.ROTATIONS


def collect(build, data_dir, runs, seconds, events, baseline):
    def one_run(i, collector, rotation, run_dir):
        rows = tr.selfcount_run(build, collector, events, 2, rotation, seconds, run_dir,
                                tags={"run": i, "reader": "sprof"})
        if baseline:
            truth = tr.read_truth(os.path.join(run_dir, "truth.txt"))
            # The older analyzer reads the same profile (it skips what it does not know).
            rows += tr.rows_of(baseline, os.path.join(run_dir, "run.sprof"), truth, events,
                               {"run": i, "reader": "baseline", "workload": "selfcount",
                                "collector": collector, "rotation": rotation}, ci=False)
        return rows
    return tr.before_and_after(data_dir, runs, one_run)


def mean_error(rows):
    errs = [e for e in map(tr.relative_error, rows) if e is not None]
    return statistics.mean(errs) if errs else None


def fmt(x):
    return "–" if x is None else f"{x:.2f} %"


def report(rows, runs, seconds, events, failures, baseline):
    print(__doc__.split("usage:")[0].split("\n", 2)[2].strip() + "\n")
    print(f"{runs} runs per rotation, {seconds} s of CPU time each, `sprof_lib` and `sprof_pt` in turn, sampling "
          f"every 10 ms, the {len(events)} events {', '.join(f'`{e}`' for e in events)} on 2 slots (each live "
          f"{2 / len(events):.0%} of the time)" + (f"; failed: {'; '.join(failures)}" if failures else "") + ".\n")
    scored = [r for r in rows if r["truth"] >= MIN_TRUTH]
    readers = [("sprof", "")] + ([("baseline", " (baseline sprof)")] if baseline else [])
    print("### Mean |error| per event (pairs with truth ≥ %d)\n" % MIN_TRUTH)
    columns = [(reader, rot, est) for reader, _ in readers for rot in ROTATIONS for est in tr.ESTIMATORS]
    names = {"round-robin": "round-robin (before)", "shuffled": "shuffled (after)"}
    print("| event | functions | " + " | ".join(f"{names[rot]}, {est}{dict(readers)[reader]}"
                                               for reader, rot, est in columns) + " |")
    print("|---|---|" + "---:|" * len(columns))
    for event in events:
        functions = sorted({r["function"] for r in scored if r["event"] == event})
        if not functions:
            continue
        cells = [fmt(mean_error([r for r in scored if r["event"] == event and r["reader"] == reader
                                 and r["rotation"] == rot and r["estimator"] == est]))
                 for reader, rot, est in columns]
        print(f"| `{event}` | {', '.join(functions)} | " + " | ".join(cells) + " |")
    overall = {c: mean_error([r for r in scored if (r["reader"], r["rotation"], r["estimator"]) == c])
               for c in columns}
    print("| **overall** | | " + " | ".join(f"**{fmt(overall[c])}**" for c in columns) + " |")
    print()
    zero_events = [e for e in events if not any(r["event"] == e and r["truth"] > 0 for r in rows)]
    if zero_events:
        worst = max((abs(r["estimate"] or 0) for r in rows if r["event"] in zero_events and r["reader"] == "sprof"),
                    default=0)
        print(f"Events that never happened in any function ({', '.join(f'`{e}`' for e in zero_events)}: "
              f"x86 neither emulates instructions nor fixes up unaligned accesses): the largest estimate of any "
              f"function is {worst:g}.\n")
    small = [r for r in rows if 0 <= r["truth"] < MIN_TRUTH and r["reader"] == "sprof"
             and r["event"] not in zero_events]
    if small:
        print(f"Pairs with fewer than {MIN_TRUTH} true events (mean truth → mean estimate, shuffled rotation):\n")
        keys = sorted({(r["function"], r["event"]) for r in small})
        for est in tr.ESTIMATORS:
            parts = []
            for function, event in keys:
                sel = [r for r in small if (r["function"], r["event"]) == (function, event)
                       and r["estimator"] == est and r["rotation"] == "shuffled" and r["estimate"] is not None]
                if sel:
                    parts.append(f"{function} `{event}` {statistics.mean(r['truth'] for r in sel):.1f} → "
                                 f"{statistics.mean(r['estimate'] for r in sel):.1f}")
            print(f"* {est}: " + "; ".join(parts))
        print()
    print("### Target\n")
    for rot in ROTATIONS:
        for est in tr.ESTIMATORS:
            v = overall[("sprof", rot, est)]
            ok = v is not None and v <= TARGET_PCT
            print(f"* {names[rot]}, {est}: mean |error| {fmt(v)} over {len(events)} events (target ≤ "
                  f"{TARGET_PCT:g} %; BayesPerf 7.6 %, CounterMiner 7.7 %): {'met' if ok else '**missed**'}")
    print()


def main():
    build, data_dir, runs, seconds = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    baseline = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None
    events = tr.machine_events()
    rows, failures = collect(build, data_dir, runs, seconds, events, baseline)
    tr.write_csv(rows, os.path.join(data_dir, "event-accuracy.csv"))
    report(rows, runs, seconds, events, failures, baseline)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Aliasing: programs whose rhythm matches the rotation of the live sets.

They are profiled with the round-robin rotation (before) and the shuffled
one (after), read with both estimators. The error that keeps its sign from run
to run is aliasing; the shuffled rotation must leave none, and its 95 %
intervals must cover the truth.

* `selfcount -m 11 -r R`: every event of four functions made in the first
  half of each R ms of CPU time only, R = one round of the rotation (N
  events on 2 slots at 10 ms: N/2 samples); calls of 55, 110, 55 and 220 ms,
  so the rhythm is not also the rhythm of the calls.
* `alternate`: heavy() and light() with calls of exact multiples of the
  sampling interval, 4 events on 2 slots (a round of 20 ms), the setting in
  which the accuracy benchmark measured 2.5–4 % fault errors before.

usage: aliasing.py BUILD_DIR DATA_DIR RUNS
"""
import os
import statistics
import sys

import truth_runs as tr

ROTATIONS = tr.ROTATIONS
COUNTED = ("page-faults", "minor-faults", "major-faults", "context-switches", "cpu-migrations")


def collect(build, data_dir, runs, events):
    rhythm = 10 * len(events) // 2
    alt_events = [e for e in ("task-clock", "page-faults", "minor-faults", "major-faults") if e in events]

    def one_run(i, collector, rotation, run_dir):
        rows = tr.selfcount_run(build, collector, events, 2, rotation, 4, run_dir, call_ms=11, rhythm_ms=rhythm,
                                tags={"run": i, "kind": f"selfcount -m 11 -r {rhythm}"})
        for call_ms in (50, 100):
            rows += tr.alternate_run(build, collector, alt_events, 2, rotation, 4, run_dir, call_ms=call_ms,
                                     tags={"run": i, "kind": f"alternate -m {call_ms}"})
        return rows
    return tr.before_and_after(data_dir, runs, one_run)


def summary(rows):
    rows = [r for r in rows if tr.signed_error(r) is not None]
    if not rows:
        return "–"
    errs = [tr.signed_error(r) for r in rows]
    covered = sum(tr.covered(r) for r in rows) / len(rows)
    return (f"{statistics.mean(errs):+.1f} / {statistics.mean(abs(e) for e in errs):.1f} % / "
            f"{100 * covered:.0f} %")


def report(rows, runs, events, failures):
    print(__doc__.split("usage:")[0].split("\n", 2)[2].strip() + "\n")
    print(f"{runs} runs per rotation (4 s of CPU time each; `sprof_lib` and `sprof_pt` in turn; the events "
          f"{', '.join(f'`{e}`' for e in events)} on 2 slots for selfcount)"
          + (f"; failed: {'; '.join(failures)}" if failures else "") + ". Each cell: **mean signed error / mean "
          f"|error| / share of 95 % intervals covering the truth**, over the runs and the functions with at least "
          f"{tr.MIN_TRUTH} true events. A mean signed error far from 0 with a mean |error| of the same size is a bias that more runs do "
          "not remove: aliasing.\n")
    kinds = sorted({r["kind"] for r in rows})
    for kind in kinds:
        sel = [r for r in rows if r["kind"] == kind]
        present = [e for e in COUNTED if any(r["event"] == e and tr.signed_error(r) is not None for r in sel)]
        print(f"### {kind}\n")
        print("| event | estimator | " + " | ".join(f"{rot} (before)" if rot == "round-robin" else f"{rot} (after)"
                                                    for rot in ROTATIONS) + " |")
        print("|---|---|" + "---|" * len(ROTATIONS))
        for event in present:
            for est in tr.ESTIMATORS:
                cells = [summary([r for r in sel if r["event"] == event and r["estimator"] == est
                                  and r["rotation"] == rot]) for rot in ROTATIONS]
                print(f"| `{event}` | {est} | " + " | ".join(cells) + " |")
        print()
    print("### Per function (coverage estimator, page faults)\n")
    print("| workload | function | " + " | ".join(ROTATIONS) + " |")
    print("|---|---|" + "---|" * len(ROTATIONS))
    for kind in kinds:
        for function in sorted({r["function"] for r in rows if r["kind"] == kind}):
            cells = [summary([r for r in rows if r["kind"] == kind and r["function"] == function
                              and r["event"] == "page-faults" and r["estimator"] == "coverage"
                              and r["rotation"] == rot]) for rot in ROTATIONS]
            if any(c != "–" for c in cells):
                print(f"| {kind} | {function} | " + " | ".join(cells) + " |")
    print()


def main():
    build, data_dir, runs = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    events = tr.machine_events()
    rows, failures = collect(build, data_dir, runs, events)
    tr.write_csv(rows, os.path.join(data_dir, "aliasing.csv"))
    report(rows, runs, events, failures)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Aliasing with the tick: a program paced in multiples of the sampling interval.

selfcount paces its calls on its own CPU time. With `-m 10` they last 50,
100, 50 and 200 ms, and a round of the four 400 ms: whole multiples of the
10 ms tick of CPU time. With a fixed period every visit of a function then
meets the ticks at nearly the phase of the first, so the part of a tick
each visit's time is off by is nearly the same at every visit: the errors
add up instead of averaging out, and where the phase happens to lie decides
how far (on a quiet machine it lies well and the errors are small; busy and
as a user whose ticks in the kernel are dropped, 10 visits lost 46 ms
together). With the period dithered (`--tick-dither`, each period drawn from
±25 % around the interval, the default) the visits' errors are independent,
as the analyzer's interval for the time assumes, whatever the phase.
`-m 10.37` is out of step with the tick: its phase drifts from visit to
visit, and a fixed period then samples systematically, its errors of
successive visits cancelling in part. The dither gives that up: what that
costs is the second pair of rows. The third column samples every 10.37 ms
at a fixed period: its phase drifts across `-m 10`'s rhythm, with neither
lock nor dither, so an error that keeps its sign there as well belongs to
neither.

usage: tick_aliasing.py BUILD_DIR DATA_DIR RUNS
"""
import os
import statistics
import sys

import measure
import truth_runs as tr

EVENTS = ("task-clock", "page-faults")  # both live at once: no rotation, only the tick
SETTINGS = (("fixed period (before)", ["--tick-dither", "0"]), ("dithered ±25 % (after)", []),
            ("fixed 10.37 ms period", ["-s", "10.37ms", "--tick-dither", "0"]))
CALLS_MS = (10, 10.37)
SECONDS = 4


def collect(build, data_dir, runs):
    rows, failures = [], []
    for i in range(runs):
        collector = ("sprof_lib", "sprof_pt")[i % 2]
        for call_ms in CALLS_MS:
            for k, (setting, args) in enumerate(SETTINGS):
                run_dir = os.path.join(data_dir, f"m{call_ms}-{k}-{i}")
                os.makedirs(run_dir, exist_ok=True)
                try:
                    rows += tr.selfcount_run(build, collector, list(EVENTS), 2, "shuffled", SECONDS, run_dir,
                                             call_ms=call_ms, collector_args=args,
                                             tags={"run": i, "pace": f"-m {call_ms}", "setting": setting})
                except measure.Failed as e:
                    failures.append(f"run {i} -m {call_ms} {setting}: {e}")
    return [r for r in rows if r["event"] == "task-clock" and r["estimator"] == "coverage"], failures


def cell(rows):
    """mean signed / mean |error| / sd of the error, in ms, and interval coverage."""
    errs = [(r["estimate"] - r["truth"]) / 1e6 for r in rows if r["estimate"] is not None]
    if len(errs) < 2:
        return "–"
    covered = sum(tr.covered(r) for r in rows) / len(rows)
    return (f"{statistics.mean(errs):+.1f} / {statistics.mean(abs(e) for e in errs):.1f} / "
            f"{statistics.stdev(errs):.1f} ms / {100 * covered:.0f} %")


def report(rows, runs, failures):
    print(__doc__.split("usage:")[0].split("\n", 2)[2].strip() + "\n")
    print(f"{runs} runs per setting and call length ({SECONDS} s of CPU time each; `sprof_lib` and `sprof_pt` in "
          f"turn; `-e {','.join(EVENTS)}` on 2 slots)" + (f"; failed: {'; '.join(failures)}" if failures else "")
          + ". Each cell: the error of a function's CPU time (task-clock, coverage estimator) against the "
          "workload's own task-clock: **mean signed / mean |error| / standard deviation over the runs, and the "
          "share of 95 % intervals that cover the truth**.\n")
    print("| calls | function | " + " | ".join(s for s, _ in SETTINGS) + " |")
    print("|---|---|" + "---|" * len(SETTINGS))
    for call_ms in CALLS_MS:
        sel = [r for r in rows if r["pace"] == f"-m {call_ms}"]
        for function in sorted({r["function"] for r in sel}):
            cells = [cell([r for r in sel if r["function"] == function and r["setting"] == s]) for s, _ in SETTINGS]
            print(f"| -m {call_ms} | {function} | " + " | ".join(cells) + " |")
    print()


def main():
    build, data_dir, runs = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    rows, failures = collect(build, data_dir, runs)
    tr.write_csv(rows, os.path.join(data_dir, "tick_aliasing.csv"))
    report(rows, runs, failures)


if __name__ == "__main__":
    main()

"""Runs of workloads that measure themselves, read back with `sprof --ci`:
one row per (function, event, estimator) with the truth, the estimate and
its 95 % interval. Shared by the calibration, aliasing and event-accuracy
benchmarks.

Workloads (tests/workloads):
* selfcount — four functions with their own rate of every software event,
  counted by the program with its own perf_event_open counters; `-r` gives
  its events a rhythm.
* alternate — heavy() and light() in turn, CPU time and minor faults per
  function from the program's own clocks (getrusage).
"""
import csv
import os
import subprocess

import measure

ESTIMATORS = ("coverage", "carry")
ROTATIONS = ("round-robin", "shuffled")  # before and after the shuffled rotation
# Relative errors only for (function, event) pairs with at least this many
# true events: a function that makes an event by accident (one stray page
# fault) has no meaningful relative error.
MIN_TRUTH = 100
SOFTWARE_EVENTS = ("task-clock", "cpu-clock", "page-faults", "minor-faults", "major-faults", "context-switches",
                   "cpu-migrations", "alignment-faults", "emulation-faults")
KERNEL_ONLY = ("context-switches", "cpu-migrations")  # refused to a user who may count user space only


def machine_events():
    """Every counting event this machine has: the software events and msr/tsc/
    (when the msr PMU exists and this user may count the kernel)."""
    events = list(SOFTWARE_EVENTS)
    user_only = not kernel_counting_allowed()
    if user_only:
        events = [e for e in events if e not in KERNEL_ONLY]
    elif os.path.exists("/sys/bus/event_source/devices/msr/events/tsc"):
        events.append("msr/tsc/")
    return events


def kernel_counting_allowed():
    if os.geteuid() == 0:
        return True
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read()) < 2


def number(cell):
    return None if cell in (None, "", "-") else float(cell)


def read_truth(path):
    """selfcount's truth: {function: {key: value}} ("calls", "cpu_s" and every event)."""
    truth = {}
    for line in open(path):
        if line.strip():
            function, key, value = line.split()
            truth.setdefault(function, {})[key] = float(value)
    return truth


def read_alternate_truth(path):
    """alternate's truth in selfcount's shape: CPU time (as task-clock ns) and minor faults."""
    t = {k: float(v) for k, v in (line.split() for line in open(path) if line.strip())}
    return {f: {"task-clock": t[f"{f}_cpu_s"] * 1e9, "page-faults": t[f"{f}_faults"],
                "minor-faults": t[f"{f}_faults"], "calls": t["calls"]} for f in ("heavy", "light")}


def report(sprof, profile, estimator, ci=True):
    """The flat CSV of `profile` (a path, or a list of paths: merged) by the
    analyzer `sprof` (with --ci): {function: row}."""
    profiles = [profile] if isinstance(profile, str) else list(profile)
    out = subprocess.run([sprof] + (["--ci"] if ci else []) + ["--no-default-rates", "--format", "csv",
                                                                "--estimator", estimator] + profiles,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise measure.Failed(f"{sprof} {' '.join(profiles)}: {out.stderr.strip()}")
    return {row["function"]: row for row in csv.DictReader(out.stdout.splitlines())}


def rows_of(sprof, profile, truth, events, tags, ci=True):
    """One row per (function the truth knows, event, estimator); without
    `ci` (an analyzer that has no --ci) the bounds are None."""
    rows = []
    for estimator in ESTIMATORS:
        rep = report(sprof, profile, estimator, ci)
        for function, t in truth.items():
            r = rep.get(function, {})
            for event in events:
                if event not in t:
                    continue
                rows.append(dict(tags, estimator=estimator, function=function, event=event, truth=t[event],
                                 estimate=number(r.get(event)), low=number(r.get(event + "_low")),
                                 high=number(r.get(event + "_high")), calls=t.get("calls")))
    return rows


def analyzer(build):
    return os.path.join(build, "bin", "sprof")


def collect(build, collector, events, slots, rotation, workload_args, data_dir, collector_args=()):
    """Profiles one run of a workload (its argv after the program; its truth
    file at data_dir/truth.txt) and returns the profile's path."""
    profile = os.path.join(data_dir, "run.sprof")
    cmd = [os.path.join(build, "bin", collector), "-e", ",".join(events), "--slots", str(slots),
           "--rotation", rotation, "-o", profile] + list(collector_args) + ["--"] + workload_args
    measure.run(cmd, cwd=data_dir)
    return profile


def selfcount_run(build, collector, events, slots, rotation, seconds, data_dir, call_ms=10, rhythm_ms=0,
                  tags=None, collector_args=()):
    truth_file = os.path.join(data_dir, "truth.txt")
    args = [os.path.join(build, "tests", "workloads", "selfcount"), "-t", str(seconds), "-m", str(call_ms),
            "-r", str(rhythm_ms), "-d", data_dir, "-e", ",".join(events), "-o", truth_file]
    profile = collect(build, collector, events, slots, rotation, args, data_dir, collector_args)
    return rows_of(analyzer(build), profile, read_truth(truth_file), events,
                   dict(tags or {}, workload="selfcount", collector=collector, rotation=rotation))


def alternate_run(build, collector, events, slots, rotation, seconds, data_dir, call_ms=50, pages=None,
                  tags=None):
    truth_file = os.path.join(data_dir, "truth.txt")
    pages = pages if pages is not None else max(8, round(4 * 3 * call_ms))  # 4 faults per ms of heavy
    args = [os.path.join(build, "tests", "workloads", "alternate"), "-t", str(seconds), "-m", str(call_ms),
            "-p", str(pages), "-o", truth_file]
    profile = collect(build, collector, events, slots, rotation, args, data_dir)
    return rows_of(analyzer(build), profile, read_alternate_truth(truth_file), events,
                   dict(tags or {}, workload="alternate", collector=collector, rotation=rotation))


def before_and_after(data_dir, runs, one_run):
    """`runs` runs with each rotation, the collectors in turn: one_run(i,
    collector, rotation, run_dir) returns rows. Returns (rows, failures)."""
    rows, failures = [], []
    for i in range(runs):
        collector = ("sprof_lib", "sprof_pt")[i % 2]
        for rotation in ROTATIONS:
            run_dir = os.path.join(data_dir, f"{rotation}-{i}")
            os.makedirs(run_dir, exist_ok=True)
            try:
                rows += one_run(i, collector, rotation, run_dir)
            except measure.Failed as e:
                failures.append(f"run {i} {rotation}: {e}")
    return rows, failures


def signed_error(row):
    """(estimate − truth) / truth in percent; None below MIN_TRUTH or for an unknown estimate."""
    if row["truth"] < MIN_TRUTH or row["estimate"] is None:
        return None
    return 100 * (row["estimate"] - row["truth"]) / row["truth"]


def relative_error(row):
    """|signed_error|."""
    e = signed_error(row)
    return None if e is None else abs(e)


def covered(row):
    """Whether the 95 % interval holds the truth (an unknown interval does not)."""
    return row["low"] is not None and row["high"] is not None and row["low"] <= row["truth"] <= row["high"]


def write_csv(rows, path):
    if not rows:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})

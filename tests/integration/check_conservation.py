#!/usr/bin/env python3
"""Every report adds up to the run's measured total: for each event, the
flat profile's functions sum to a total, and the same total comes out of the
source lines (`--lines`, also per function), the time line's rows (and its
rows per function), the phases, a job's ranks (`--imbalance`), and the
exported counters (Gecko, Chrome trace) — for both estimators. The flat
report's total is also held against the run's own total (the JSON `total`:
the whole run's cells estimated at once) within the run total's 95 %
interval, `--ci`, for both estimators: a warning, or with --run-total (every
integration test) an error. Where a function that holds time has an unknown
estimate of an event (never live there), the functions have no sum of it to
hold against the run's: that event is not compared.

Values are read as the reports print them: an integer column is rounded to
a unit, so a sum of n rows may differ from another by n/2 units; a general
column keeps 6 significant digits.

usage: check_conservation.py [--run-total] SPROF PROFILE [PROFILE…]   (the profiles as one dataset)
Exit 0: all agree; 1: some do not (each difference on a line); 77: sprof
cannot read the profiles as a flat profile (nothing to check)."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

RELATIVE = 1e-5  # 6 significant digits, and the sums' own rounding
csv.field_size_limit(sys.maxsize)  # a hostile profile's names may be megabytes long


def run(sprof, args, profiles):
    # A hostile profile's names may be any bytes: read as sprof wrote them.
    r = subprocess.run([sprof, *args, *profiles], capture_output=True, text=True, errors="surrogateescape")
    if r.returncode != 0:
        raise RuntimeError(f"sprof {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def number(v):
    return float(v) if v not in ("", None) else None


class Sum:
    """A sum of printed values and how many were added (for the rounding)."""

    def __init__(self):
        self.value, self.n = 0.0, 0

    def add(self, v, rounded=True):
        if v is None:
            return
        self.value += v
        self.n += 1 if rounded else 0


def sums(rows, events, key=lambda r: None):
    out = {}
    for r in rows:
        per = out.setdefault(key(r), {e: Sum() for e in events})
        for e in events:
            per[e].add(number(r.get(e)))
    return out


def agree(a, b):
    slack = 0.5 * (a.n + b.n) + RELATIVE * max(abs(a.value), abs(b.value)) + 1e-6
    return abs(a.value - b.value) <= slack


def check(sprof, profiles):
    """(errors, warnings): reports that do not add up to the flat report,
    and a flat report that does not add up to the run's total."""
    errors, warnings = [], []
    for est in ("coverage", "carry"):
        flat_json = json.loads(run(sprof, ["--ci", "--estimator", est, "--format", "json"], profiles))
        events = flat_json["events"]
        warnings += against_run_total(est, flat_json)
        opt = ["--estimator", est, "--format", "csv"]
        flat_rows = csv_rows(run(sprof, opt, profiles))
        fkey = lambda r: (r["function"], r["object"])
        flat_f = sums(flat_rows, events, fkey)
        flat = sums(flat_rows, events)[None] if flat_rows else {e: Sum() for e in events}

        def compare(what, got, want=flat):
            for e in events:
                if not agree(got[e], want[e]):
                    errors.append(f"{est}: {what}: {e} adds up to {got[e].value:.6g}, the flat report to {want[e].value:.6g}")

        def compare_functions(what, rows):
            for f, got in sums(rows, events, fkey).items():
                if f in flat_f:
                    compare(f"{what} of {f[0]}", got, flat_f[f])
                else:
                    errors.append(f"{est}: {what}: function {f[0]} ({f[1]}) is not in the flat report")

        lines = csv_rows(run(sprof, ["--lines", *opt], profiles))
        compare("--lines", sums(lines, events).get(None, {e: Sum() for e in events}))
        compare_functions("--lines", lines)
        timeline = csv_rows(run(sprof, ["--timeline", *opt], profiles))
        compare("--timeline", sums(timeline, events).get(None, {e: Sum() for e in events}))
        by_function = csv_rows(run(sprof, ["--timeline", "--by-function", *opt], profiles))
        compare_functions("--timeline --by-function", by_function)
        # A job's phases are each rank's: they add up to the job as its ranks do.
        phases = csv_rows(run(sprof, ["--phases", *opt], profiles))
        compare("--phases", sums(phases, events).get(None, {e: Sum() for e in events}))
        # Every profile outside a job is a rank of its own.
        doc = json.loads(run(sprof, ["--imbalance", "--estimator", est, "--format", "json"], profiles))
        ranks = {e: Sum() for e in events}
        for r in doc["ranks"]:
            for e in events:
                ranks[e].add(r.get(e), rounded=False)
        compare("--imbalance ranks", ranks)
        if est == "coverage":
            compare("exports", exported(sprof, profiles, events))

    return errors, warnings


def against_run_total(est, flat_json):
    """The flat report (JSON, --ci) against the run's total estimated at
    once: where it lies outside the total's 95 % interval, per event."""
    events, functions, total = flat_json["events"], flat_json["functions"], flat_json["total"]
    flat = sums(functions, events)[None] if functions else {e: Sum() for e in events}
    out = []
    for e in events:
        low, high = total.get(e + "_low"), total.get(e + "_high")
        if low is None or high is None or any(f.get(e) is None and f["time_s"] > 0 for f in functions):
            continue
        if not low - 0.5 * flat[e].n <= flat[e].value <= high + 0.5 * flat[e].n:
            out.append(f"{est}: flat report: {e} adds up to {flat[e].value:.6g}, "
                       f"outside the run total's 95 % interval [{low:.6g}, {high:.6g}]")
    return out


def exported(sprof, profiles, events):
    """The event counters of the Gecko and Chrome exports, summed; both
    must be the same, and are returned as one (their sums of rows)."""
    with tempfile.TemporaryDirectory() as tmp:
        gecko, chrome = os.path.join(tmp, "g.json"), os.path.join(tmp, "c.json")
        run(sprof, ["--export", "gecko", gecko, "--export", "chrome-trace", chrome], profiles)
        g = json.load(open(gecko))
        c = json.load(open(chrome))
    got = {e: Sum() for e in events}
    for proc in [g] + g.get("processes", []):
        for counter in proc.get("counters", []):
            if counter["name"] not in got:
                continue
            schema = counter["samples"]["schema"]
            for point in counter["samples"]["data"]:
                got[counter["name"]].add(point[schema["count"]], rounded=False)
    chrome_sums = {e: Sum() for e in events}
    for ev in c["traceEvents"]:
        if ev.get("ph") == "C" and ev["name"] in chrome_sums:
            chrome_sums[ev["name"]].add(ev["args"][ev["name"]], rounded=False)
    for e in events:
        if not agree(got[e], chrome_sums[e]):
            raise RuntimeError(f"exports: {e}: Gecko's counter adds up to {got[e].value:.6g}, "
                               f"Chrome's to {chrome_sums[e].value:.6g}")
    return got


def main():
    args = sys.argv[1:]
    run_total_fatal = bool(args) and args[0] == "--run-total"
    if run_total_fatal:
        args = args[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    sprof, profiles = args[0], args[1:]
    try:
        run(sprof, ["--format", "csv"], profiles)
    except RuntimeError as e:
        print(f"conservation: not checked: {e}")
        sys.exit(77)
    errors, warnings = check(sprof, profiles)
    if run_total_fatal:
        errors, warnings = errors + warnings, []
    names = " ".join(os.path.basename(p) for p in profiles)
    for w in warnings:
        print(f"conservation: {names}: warning: {w}", file=sys.stderr)
    for e in errors:
        print(f"conservation: {names}: {e}", file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f"conservation: {names}: every report adds up to the flat report"
          f"{', and it to the run total' if run_total_fatal else ''}")


main()

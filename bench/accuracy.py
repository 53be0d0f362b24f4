#!/usr/bin/env python3
"""Accuracy against ground truth: the two alternating functions of
tests/workloads/alternate (heavy = 3× the CPU time of light per call and all
the page faults), profiled over a range of call lengths and sampling
intervals, by both collectors, read with both estimators. Writes the raw
points to DATA_DIR/accuracy.csv, plots two PNGs into PLOT_DIR and prints a
Markdown section on stdout.

usage: accuracy.py BUILD_DIR DATA_DIR PLOT_DIR QUICK(0|1)
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys

import measure

EVENTS = "task-clock,page-faults,context-switches,minor-faults"
FAULTS = "page-faults"
ESTIMATORS = ("coverage", "carry")
COLLECTORS = ("sprof_lib", "sprof_pt")
FAULTS_PER_HEAVY_MS = 4  # pages touched per ms of heavy() CPU time: the same true fault rate at every call length


def pages_per_heavy_call(call_ms):
    """At least one page per fault burst (heavy faults in 8 bursts per call)."""
    return max(8, round(FAULTS_PER_HEAVY_MS * 3 * call_ms))


def plan(quick):
    """(interval_ms, slots, call_ms) points. Grid A sweeps call length at three
    sampling intervals with every event live (4 slots); grid B repeats the
    sweep at 10 ms with 4 events multiplexed on 1 and 2 slots."""
    ratios = (0.5, 5) if quick else (0.2, 0.5, 1, 2, 5, 10, 20)
    intervals = (10,) if quick else (1, 10, 20)
    points = [(ms, 4, r * ms) for ms in intervals for r in ratios]
    points += [(10, slots, r * 10) for slots in (1, 2) for r in ratios]
    return points


def run_seconds(interval_ms, quick):
    """Enough CPU time for ~400 samples, within 2–8 s (1 s in quick mode)."""
    return 1.0 if quick else min(8.0, max(2.0, 0.4 * interval_ms))


def read_truth(path):
    return {k: float(v) for k, v in (line.split() for line in open(path) if line.strip())}


def read_report(sprof, profile, estimator):
    out = subprocess.run([sprof, "--format", "csv", "--estimator", estimator, profile],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise measure.Failed(f"sprof --estimator {estimator} {profile}: {out.stderr.strip()}")
    return {row["function"]: row for row in csv.DictReader(out.stdout.splitlines())}


def number(cell):
    """A report cell as a float, or None for an unknown estimate."""
    return None if cell in (None, "", "-") else float(cell)


def pair_share_error(report, truth):
    """heavy's share of heavy + light time minus the truth, in points: blind to
    time the profile gives to other functions (system-call wrappers, vDSO)."""
    if "heavy" not in report or "light" not in report:
        return None
    h, l = float(report["heavy"]["time_s"]), float(report["light"]["time_s"])
    return 100 * (h / (h + l) - truth["heavy_cpu_s"] / (truth["heavy_cpu_s"] + truth["light_cpu_s"]))


def errors(report, truth):
    """(time share error in points, fault-rate error in %, fault-count error in %) of heavy."""
    heavy = report.get("heavy")
    if heavy is None:
        return None, None, None
    true_share = 100 * truth["heavy_cpu_s"] / (truth["heavy_cpu_s"] + truth["light_cpu_s"])
    share_err = float(heavy["time_pct"]) - true_share
    faults, time_s = number(heavy.get(FAULTS)), float(heavy["time_s"])
    if faults is None or time_s <= 0:
        return share_err, None, None
    true_rate = truth["heavy_faults"] / truth["heavy_cpu_s"]
    rate_err = 100 * (faults / time_s - true_rate) / true_rate
    count_err = 100 * (faults - truth["heavy_faults"]) / truth["heavy_faults"]
    return share_err, rate_err, count_err


def keep_if_inconsistent(profile, truth_file, sprof, truth, tag):
    """Keeps the profile and truth of a run whose total profile time is more
    than 3 % off the program's own CPU time, for a closer look."""
    total = sum(float(r["time_s"]) for r in read_report(sprof, profile, "coverage").values())
    if abs(total / (truth["heavy_cpu_s"] + truth["light_cpu_s"]) - 1) > 0.03:
        shutil.copy(profile, f"{profile}.{tag}.inconsistent")
        shutil.copy(truth_file, f"{truth_file}.{tag}.inconsistent")


def collect(build, data_dir, quick):
    bin_dir = os.path.join(build, "bin")
    alternate = os.path.join(build, "tests", "workloads", "alternate")
    sprof = os.path.join(bin_dir, "sprof")
    rows, missing = [], [c for c in COLLECTORS if not os.access(os.path.join(bin_dir, c), os.X_OK)]
    for interval_ms, slots, call_ms in plan(quick):
        for collector in COLLECTORS:
            if collector in missing:
                continue
            profile, truth_file = os.path.join(data_dir, "alt.sprof"), os.path.join(data_dir, "truth.txt")
            cmd = [os.path.join(bin_dir, collector), "-e", EVENTS, "--slots", str(slots), "-s", f"{interval_ms}ms",
                   "-o", profile, "--", alternate, "-t", str(run_seconds(interval_ms, quick)), "-m", f"{call_ms:g}",
                   "-p", str(pages_per_heavy_call(call_ms)), "-o", truth_file]
            measure.run(cmd, cwd=data_dir)
            truth = read_truth(truth_file)
            keep_if_inconsistent(profile, truth_file, sprof, truth, f"{collector}-{interval_ms}ms-{slots}-{call_ms:g}")
            for estimator in ESTIMATORS:
                report = read_report(sprof, profile, estimator)
                share_err, rate_err, count_err = errors(report, truth)
                rows.append({"collector": collector, "estimator": estimator, "interval_ms": interval_ms,
                             "slots": slots, "call_ms": call_ms, "call_per_interval": call_ms / interval_ms,
                             "share_err_pp": share_err, "pair_share_err_pp": pair_share_error(report, truth),
                             "fault_rate_err_pct": rate_err,
                             "fault_count_err_pct": count_err,
                             "time_ratio": sum(float(r["time_s"]) for r in report.values())
                             / (truth["heavy_cpu_s"] + truth["light_cpu_s"])})
    return rows, missing


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})


def plot(rows, data_dir, plot_dir):
    """Error against call length (log x): time share per collector and
    interval (every event live), and fault rate per collector, estimator and
    slot count at 10 ms. One data file per curve, drawn by gnuplot."""
    def curve(collector, estimator, ms, slots, column):
        sel = sorted((r["call_per_interval"], r[column]) for r in rows
                     if (r["collector"], r["estimator"], r["interval_ms"], r["slots"]) == (collector, estimator, ms, slots)
                     and r[column] is not None)
        if not sel:
            return None
        path = os.path.join(data_dir, f"curve-{column}-{collector}-{estimator}-{ms}ms-{slots}.dat")
        with open(path, "w") as f:
            f.writelines(f"{x:g} {abs(y):.4f}\n" for x, y in sel)
        return path

    def plot_cmd(specs, column):
        parts = []
        for collector, estimator, ms, slots, title in specs:
            path = curve(collector, estimator, ms, slots, column)
            if path:
                parts.append(f"'{path}' using 1:2 with linespoints title '{title}'")
        return "plot " + ", ".join(parts) if parts else ""

    intervals = sorted({r["interval_ms"] for r in rows if r["slots"] == 4})
    share_specs = [(c, "coverage", ms, 4, f"{c} {ms} ms") for c in COLLECTORS for ms in intervals]
    rate_specs = [(c, e, 10, k, f"{c} {e} {k} slot{'s' if k > 1 else ''}")
                  for c in COLLECTORS for k in (1, 2, 4) for e in ESTIMATORS]
    common = ("set terminal pngcairo size 1000,620 noenhanced; set logscale x; set grid; "
              "set xlabel 'light call length / sampling interval (heavy call is 3x)'; set key outside right; ")
    script = common + (
        f"set output '{plot_dir}/accuracy-time-share.png'; "
        "set title 'heavy() time share: |profile - truth| (all 4 events live)'; "
        "set ylabel 'percentage points'; " + plot_cmd(share_specs, "share_err_pp") + "; "
        f"set output '{plot_dir}/accuracy-fault-rate.png'; "
        "set title 'heavy() page faults per CPU second at 10 ms: |profile - truth| / truth, 4 events on K slots'; "
        "set ylabel 'percent'; set logscale y; " + plot_cmd(rate_specs, "fault_rate_err_pct") + "\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True, capture_output=True)


def median_abs(values):
    values = [abs(v) for v in values if v is not None]
    return (statistics.median(values), max(values)) if values else None


def cell(values, unit):
    m = median_abs(values)
    return "unknown" if m is None else f"{m[0]:.2f} {unit} (max {m[1]:.2f})"


def report(rows, missing, quick):
    print("`tests/workloads/alternate` calls `heavy()` and `light()` in turn; a heavy call takes 3× the CPU time "
          f"of a light call and touches {FAULTS_PER_HEAVY_MS} fresh pages per ms of its CPU time (one minor fault "
          "each, in 8 bursts spread over the call; at least 8 pages), so the true fault rate is the same at every "
          "call length; light touches none. The program measures its own per-function CPU time "
          "(CLOCK_THREAD_CPUTIME_ID) and minor faults (getrusage) — the truth. Each point is one run:\n")
    print(f"`COLLECTOR -e {EVENTS} --slots K -s INTERVAL -- alternate -t T -m CALL -p PAGES`, "
          "read with `sprof --format csv --estimator coverage|carry`. *Call length* is the light call (heavy is 3×), "
          "given as a multiple of the sampling interval. T gives ~400 samples per run (2–8 s of CPU time"
          f"{'; 1 s in quick mode' if quick else ''}).\n")
    print("* **time share error** — heavy's `time_pct` minus its true share, in percentage points. The truth is "
          "inclusive (heavy's own clock reads and mmap/munmap calls count as heavy), a flat profile gives samples "
          "that land in a system-call wrapper or the vDSO to that function; so the long-call table also shows "
          "**share of heavy + light** — heavy's share of the two functions' time only, blind to that effect.")
    print(f"* **fault rate error** — heavy's estimated {FAULTS} per second of its own time vs the true faults "
          "per CPU second, in percent.\n")
    for c in missing:
        print(f"* {c}: **not built** in this build directory — no points.\n")
    if not rows:
        return
    print("![time share error](accuracy-time-share.png)\n")
    print("![fault rate error](accuracy-fault-rate.png)\n")

    long_calls = [r for r in rows if r["call_per_interval"] >= 5]
    print("### Calls at least 5× the sampling interval (median |error|, max in brackets)\n")
    print("| collector | estimator | interval | slots | time share | share of heavy + light | fault rate |")
    print("|---|---|---|---|---|---|---|")
    groups = sorted({(r["collector"], r["estimator"], r["interval_ms"], r["slots"]) for r in long_calls})
    for g in groups:
        sel = [r for r in long_calls if (r["collector"], r["estimator"], r["interval_ms"], r["slots"]) == g]
        print(f"| {g[0]} | {g[1]} | {g[2]} ms | {g[3]} | {cell([r['share_err_pp'] for r in sel], 'pp')} | "
              f"{cell([r['pair_share_err_pp'] for r in sel], 'pp')} | {cell([r['fault_rate_err_pct'] for r in sel], '%')} |")
    print()

    print("### Every point (|error|; time share in pp / fault rate in %)\n")
    ratios = sorted({r["call_per_interval"] for r in rows})
    print("| collector | estimator | interval | slots | " + " | ".join(f"call {x:g}×" for x in ratios) + " |")
    print("|---|---|---|---|" + "---|" * len(ratios))
    for g in sorted({(r["collector"], r["estimator"], r["interval_ms"], r["slots"]) for r in rows}):
        by_ratio = {r["call_per_interval"]: r for r in rows
                    if (r["collector"], r["estimator"], r["interval_ms"], r["slots"]) == g}
        cells = []
        for x in ratios:
            r = by_ratio.get(x)
            if r is None:
                cells.append("")
                continue
            rate = "?" if r["fault_rate_err_pct"] is None else f"{abs(r['fault_rate_err_pct']):.1f}"
            cells.append(f"{abs(r['share_err_pp']):.2f} / {rate}" if r["share_err_pp"] is not None else "missing")
        print(f"| {g[0]} | {g[1]} | {g[2]} ms | {g[3]} | " + " | ".join(cells) + " |")
    print("\n`?` = the estimate is unknown (the event was never live while heavy held the PC).\n")
    off = [r for r in rows if r["estimator"] == "coverage" and abs(r["time_ratio"] - 1) > 0.03]
    print("Consistency: total profile time over the program's own CPU time (heavy + light), which should be 1 "
          "apart from start-up and exit: " + (", ".join(f"{r['collector']} {r['interval_ms']} ms {r['slots']} slots "
          f"call {r['call_per_interval']:g}×: {r['time_ratio']:.3f}" for r in off) if off else
          "within 3 % at every point") + ". The profiles of runs off by more than 3 % are kept as "
          "`*.inconsistent` in the build directory's `bench/accuracy/`.\n")
    judge(rows, long_calls)


def judge(rows, long_calls):
    print("### Targets\n")
    for collector in COLLECTORS:
        for label, live in (("every event live (4 slots)", lambda k: k == 4),
                            ("4 events multiplexed on 1–2 slots", lambda k: k < 4)):
            sel = [r for r in long_calls
                   if r["collector"] == collector and r["estimator"] == "coverage" and live(r["slots"])]
            if not sel:
                continue
            share = max(abs(r["share_err_pp"]) for r in sel)
            rate = max(float("inf") if r["fault_rate_err_pct"] is None else abs(r["fault_rate_err_pct"]) for r in sel)
            print(f"* {collector}, coverage estimator, calls ≥ 5× interval, {label}: worst time share error "
                  f"{share:.2f} pp (target ≤ 1): {'met' if share <= 1 else '**missed**'}; worst fault rate error "
                  f"{rate:.2f} % (target ≤ 2): {'met' if rate <= 2 else '**missed**'}")
    multiplexed = [r for r in rows if r["slots"] < 4]
    for collector in COLLECTORS:
        errs = {}
        for est in ESTIMATORS:
            vals = [r["fault_rate_err_pct"] for r in multiplexed if r["collector"] == collector and r["estimator"] == est]
            errs[est] = median_abs(vals)
        if errs["coverage"] and errs["carry"]:
            cov, car = errs["coverage"][0], errs["carry"][0]
            print(f"* {collector}, multiplexed (4 events on 1 and 2 slots, all call lengths): median fault rate error "
                  f"coverage {cov:.2f} % vs carry-forward {car:.2f} % (target: coverage ≤ half of carry-forward): "
                  f"{'met' if cov <= car / 2 else '**missed**'}")
    print()
    print("What limits the multiplexed estimates here: one event set is live per sample, and both the sampling "
          "timer and the workload run on the thread's CPU clock. `heavy()` faults in 8 bursts per call, so its "
          "bursts recur every 3 × CALL / 8; an event not live at a burst is estimated from the samples where it "
          "was. The order of the live sets is the run's --rotation (shuffled by default); how a program whose "
          "rhythm matches a round-robin rotation is over- or under-counted, and what shuffling leaves, is the "
          "aliasing section. Call lengths here are exact multiples of the interval.\n")


def main():
    build, data_dir, plot_dir, quick = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
    rows, missing = collect(build, data_dir, quick)
    if rows:
        write_csv(rows, os.path.join(data_dir, "accuracy.csv"))
        plot(rows, data_dir, plot_dir)
    report(rows, missing, quick)


if __name__ == "__main__":
    main()

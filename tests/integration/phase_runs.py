#!/usr/bin/env python3
"""Repeated runs of a phased workload under sprof_pt, each judged by
`sprof --phases` against the parts the workload measured for itself
(phase_truth.parts_found): how often the phase finder finds them all.

Workloads: `python` — python3 running tests/workloads/phases.py (three kinds
of interpreted work, repeated; 2 ms ticks, histogram intervals of 50 of
them, 100 ms of CPU time);
`c` — tests/workloads/phases (setup, then compress and decompress
alternating; 10 ms ticks, 10 samples an interval).

usage: phase_runs.py BUILD_DIR WORKLOAD RUNS SCRATCH [SPROF…]
Prints one line per run and sprof (`run N SPROF: ok` or what was wrong),
then `found K of RUNS` per sprof (the first SPROF is BUILD_DIR's when none
is given). The runs SCRATCH holds already (WORKLOAD-N.sprof and .txt) are
judged again, not made again. Exit 0 whatever was found: the caller judges
the counts."""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from phase_truth import cpu_axis, parts_found, read_truth  # noqa: E402

WORKLOADS_SOURCE = os.path.join(os.path.dirname(HERE), "workloads")


def record(build, workload, profile, truth):
    """One run of the workload under sprof_pt."""
    pt = os.path.join(build, "bin", "sprof_pt")
    if workload == "python":
        script = os.path.join(WORKLOADS_SOURCE, "phases.py")
        # Intervals of 50 ticks, 100 ms of CPU time: wall-clock intervals
        # (--hist-interval) hold a few samples each on a busy machine.
        cmd = [pt, "-e", "task-clock", "-s", "2ms", "-H", "50", "-o", profile,
               "/usr/bin/python3", script, "-r", "2", "-l", "0.6", "-o", truth]
    else:
        program = os.path.join(build, "tests", "workloads", "phases")
        cmd = [pt, "-e", "task-clock,page-faults,minor-faults,major-faults", "--slots", "2", "-s", "10ms",
               "-H", "10", "-o", profile, program, "-r", "2", "-l", "0.8", "-o", truth]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, PYTHONHASHSEED="0"))


def judge(sprof, profile, truth):
    """None when the phases are the truth's parts, else what is wrong."""
    def report(option):
        path = f"{profile}{option}.csv"
        with open(path, "w") as out:
            subprocess.run([sprof, option, "--format", "csv", profile], check=True, stdout=out)
        return path
    phases = list(csv.DictReader(open(report("--phases"))))
    interval_s, cpu_at = cpu_axis(report("--timeline"))
    return parts_found(phases, read_truth(truth), cpu_at, interval_s)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    build, workload, runs, scratch = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    sprofs = sys.argv[5:] or [os.path.join(build, "bin", "sprof")]
    found = {s: 0 for s in sprofs}
    for i in range(runs):
        profile, truth = os.path.join(scratch, f"{workload}-{i}.sprof"), os.path.join(scratch, f"{workload}-{i}.txt")
        if not (os.path.exists(profile) and os.path.exists(truth)):  # kept from before: judged again
            record(build, workload, profile, truth)
        for s in sprofs:
            wrong = judge(s, profile, truth)
            found[s] += wrong is None
            print(f"run {i} {s}: {wrong or 'ok'}", flush=True)
    for s in sprofs:
        print(f"found {found[s]} of {runs} {s}")


main()

#!/usr/bin/env python3
"""Peer agreement: per-function time shares of python3 running a CPU-bound
script (bench/python_cpu.py) from sprof_lib, sprof_pt and perf record, all at
the same sampling interval. Prints a Markdown section on stdout.

usage: peers.py BUILD_DIR SCRATCH_DIR RUNS SCRIPT_ROUNDS
"""
import csv
import os
import re
import subprocess
import sys

import measure

HERE = os.path.dirname(os.path.abspath(__file__))
INTERVAL_MS = 1  # many samples per run, so sampling noise stays well below the differences we look for
TOP = 10
# The distribution's interpreter (not a version manager's shim, which would put a shell in the profile).
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else "python3"


def sprof_shares(sprof, profile):
    out = subprocess.run([sprof, "--format", "csv", profile], capture_output=True, text=True)
    if out.returncode != 0:
        raise measure.Failed(f"sprof {profile}: {out.stderr.strip()}")
    shares = {}
    for row in csv.DictReader(out.stdout.splitlines()):
        name = "[unknown]" if row["function"].startswith("[unknown]") else row["function"]
        shares[name] = shares.get(name, 0.0) + float(row["time_pct"])
    return shares


PERF_LINE = re.compile(r"^\s*([\d.]+)%\s+\[(.)\]\s+(\S+)")


def perf_shares(data):
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "symbol",
                          "--comm", "python3", "-q"], capture_output=True, text=True)
    if out.returncode != 0:
        raise measure.Failed(f"perf report -i {data}: {out.stderr.strip()}")
    shares = {}
    for line in out.stdout.splitlines():
        m = PERF_LINE.match(line)
        if m:
            name = "[unknown]" if m.group(3).startswith("0x") else m.group(3)
            shares[name] = shares.get(name, 0.0) + float(m.group(1))
    total = sum(shares.values())  # --comm filters: renormalise to the python3 samples
    return {k: 100 * v / total for k, v in shares.items()}


def main():
    build, scratch, runs, script_rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    bin_dir = os.path.join(build, "bin")
    sprof = os.path.join(bin_dir, "sprof")
    program = [PYTHON, os.path.join(HERE, "python_cpu.py"), script_rounds]
    tools = {
        "perf record": (["perf", "record", "-q", "-e", "cpu-clock", "-c", str(INTERVAL_MS * 1_000_000),
                         "-o", "perf.data", "--"], lambda: perf_shares(os.path.join(scratch, "perf.data"))),
        "sprof_lib": ([os.path.join(bin_dir, "sprof_lib"), "-s", f"{INTERVAL_MS}ms", "-o", "lib.sprof", "--"],
                      lambda: sprof_shares(sprof, os.path.join(scratch, "lib.sprof"))),
        "sprof_pt": ([os.path.join(bin_dir, "sprof_pt"), "-s", f"{INTERVAL_MS}ms", "-o", "pt.sprof", "--"],
                     lambda: sprof_shares(sprof, os.path.join(scratch, "pt.sprof"))),
    }
    missing = [t for t, (cmd, _) in tools.items() if cmd[0] != "perf" and not os.access(cmd[0], os.X_OK)]
    present = [t for t in tools if t not in missing]

    def run_one(tool):
        m = measure.run(tools[tool][0] + program, cwd=scratch)
        return m["cpu_s"], tools[tool][1]()

    results = measure.interleaved(present, runs, run_one)
    mean = {t: {} for t in present}
    for t in present:
        for _, shares in results[t]:
            for name, pct in shares.items():
                mean[t][name] = mean[t].get(name, 0.0) + pct / len(results[t])

    print(f"`{PYTHON} bench/python_cpu.py {script_rounds}` (the system's interpreter, "
          f"{subprocess.run([PYTHON, '--version'], capture_output=True, text=True).stdout.strip()}; its C functions "
          f"are the functions) under each profiler at a {INTERVAL_MS} ms sampling interval of CPU time; {runs} runs per "
          "profiler, interleaved; shares are the mean over the runs. perf: `perf record -e cpu-clock -c "
          f"{INTERVAL_MS * 1_000_000}`, `perf report --sort symbol --comm python3`; sprof: default events, "
          "`sprof --format csv`. Addresses no symbol covers are pooled as `[unknown]` for every tool.\n")
    for t in missing:
        print(f"* {t}: **not built** in this build directory — no column.\n")
    reference = "perf record"
    top = sorted(mean[reference], key=mean[reference].get, reverse=True)[:TOP]
    others = [t for t in present if t != reference]
    print(f"| function (top {TOP} by perf) | " + " | ".join(present) + " |")
    print("|---|" + "---|" * len(present))
    for name in top:
        print(f"| `{name}` | " + " | ".join(f"{mean[t].get(name, 0.0):.2f} %" for t in present) + " |")
    print()
    pairs = [(reference, o) for o in others] + [(a, b) for i, a in enumerate(others) for b in others[i + 1:]]
    named = [name for name in top if name != "[unknown]"]
    for a, b in pairs:
        diffs = {name: abs(mean[a].get(name, 0.0) - mean[b].get(name, 0.0)) for name in top}
        worst = max(diffs, key=diffs.get)
        line = f"* largest difference {a} vs {b} among these functions: **{diffs[worst]:.2f} pp** (`{worst}`)"
        if worst == "[unknown]" and named:  # that is symbol coverage, not sampling: also give the named ones
            worst = max(named, key=diffs.get)
            line += f"; among the named ones: **{diffs[worst]:.2f} pp** (`{worst}`)"
        print(line)
    # Samples behind one tool's mean: its runs' CPU time over the interval.
    n = sum(cpu for cpu, _ in results[reference]) * 1000 / INTERVAL_MS
    p = mean[reference][top[0]] / 100
    print(f"\nFor scale: ~{n:.0f} samples per profiler; sampling alone gives the top function "
          f"({100 * p:.0f} %) a standard error of about {100 * (p * (1 - p) / n) ** 0.5:.2f} pp, "
          f"so for that function a difference between two profilers of up to ~{2.8 * 100 * (p * (1 - p) / n) ** 0.5:.2f} pp "
          "is noise (95 %).\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The cost of a sample with its call chain (-g fp) against a flat one, and
the profile's bytes per sample: call_tree (tests/workloads/call_paths, built
with frame pointers; chains of 4 to 17 frames) does a fixed amount of work
unprofiled and under each collector at 1 ms ticks, with and without -g fp,
interleaved. A sample's cost is the CPU time the run gained over the
unprofiled one, divided by the samples the profile holds.

usage: call_graph_cost.py BUILD_DIR SCRATCH_DIR ROUNDS
"""
import os
import statistics
import subprocess
import sys

import measure

WORK_ROUNDS = "600"  # of call_tree's loop: ~3 s here


def samples_of(sprof, profile):
    out = subprocess.run([sprof, "--format", "csv", profile], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    col = lines[0].split(",").index("samples")
    return sum(int(line.split(",")[col]) for line in lines[1:])


def main():
    build, scratch, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bin_dir = os.path.join(build, "bin")
    program = [os.path.join(build, "tests/workloads/call_tree"), "0", os.devnull, WORK_ROUNDS]
    configs = [("unprofiled", None, None)]
    for tool in ("sprof_lib", "sprof_pt"):
        for graph in ("none", "fp"):
            configs.append((tool, graph, [os.path.join(bin_dir, tool), "-g", graph, "-s", "1ms", "-e", "task-clock",
                                          "-o", f"{tool}-{graph}.sprof", "--"]))
    keys = [(c[0], c[1]) for c in configs]
    prefix = {(c[0], c[1]): c[2] or [] for c in configs}
    extra = {}

    def run_one(key):
        m = measure.run(prefix[key] + program, cwd=scratch)
        if key[1]:
            path = os.path.join(scratch, f"{key[0]}-{key[1]}.sprof")
            m["samples"] = samples_of(os.path.join(bin_dir, "sprof"), path)
            m["bytes"] = os.path.getsize(path)
        return m

    results = measure.interleaved(keys, rounds, run_one)
    base = results[("unprofiled", None)]
    print(f"Machine: {measure.machine_line()}; {rounds} rounds, call_tree {WORK_ROUNDS} rounds, 1 ms ticks, task-clock.\n")
    print("| collector | -g | samples | CPU µs per sample (median, min … max) | bytes per sample |")
    print("|---|---|---:|---|---:|")
    for tool in ("sprof_lib", "sprof_pt"):
        for graph in ("none", "fp"):
            runs = results[(tool, graph)]
            per = [(r["cpu_s"] - b["cpu_s"]) / r["samples"] * 1e6 for r, b in zip(runs, base)]
            med = statistics.median(per)
            size = statistics.median(r["bytes"] / r["samples"] for r in runs)
            extra[(tool, graph)] = med
            print(f"| {tool} | {graph} | {int(statistics.median(r['samples'] for r in runs))} | "
                  f"{med:.1f} ({min(per):.1f} … {max(per):.1f}) | {size:.0f} |")
    for tool in ("sprof_lib", "sprof_pt"):
        print(f"\n{tool}: a sample with its chain costs {extra[(tool, 'fp')] / extra[(tool, 'none')]:.2f}× a flat one.")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Overhead of locality collection: a program built with sprof-cc, run on
its own (the inline fast path, never armed, and hooks that are no-ops),
under sprof_lib without --locality, and with
--locality at two rates and in exact mode, each as a ratio of CPU time to the
same program built without instrumentation, measured side by side in the
same round. Exact mode, two orders of magnitude slower, runs a smaller
input (against the plain run of that input). Workloads: two loops of our
own and the real programs of bench/real_programs.py. Prints a Markdown
section on stdout.

usage: locality_overhead.py BUILD_DIR SCRATCH_DIR ROUNDS
"""
import os
import statistics
import sys

import measure
import real_programs



def build(bin_dir, scratch):
    """The workloads, as real_programs.Program values."""
    work = os.path.join(os.path.dirname(bin_dir), "tests", "workloads")
    own = [
        ("sweep", f"{work}/loc_sweep_plain", f"{work}/loc_sweep", ["-n", "100000", "-s", "3000"],
         ["-n", "100000", "-s", "30"], "300 M one-byte loads sweeping 6.4 MB (memory-bound, nothing but loads)"),
        ("matmul", f"{work}/loc_kernels_plain", f"{work}/loc_kernels", ["-k", "matmul", "-n", "600"],
         ["-k", "matmul", "-n", "160"],
         "naive 600×600 matrix multiply: 432 M loads, a multiply-add per two (exact mode: 160×160)"),
    ]
    real = real_programs.prepare(os.path.dirname(bin_dir))
    for p in real:
        p.what += " (exact mode: a quarter of the input)" if p.name == "bzip2" else " (exact mode: 10,000 rows)"
    return [real_programs.Program(*w) for w in own] + real


def configs(bin_dir):
    lib = f"{bin_dir}/sprof_lib"
    events = ["-e", "task-clock", "-o", "run.sprof"]
    return [
        ("instrumented, on its own (the fast path alone)", None),
        ("instrumented, sprof_lib without --locality", [lib] + events + ["--"]),
        ("instrumented, sprof_lib --locality (1 in 10^5, the default)", [lib] + events + ["--locality", "--"]),
        ("instrumented, sprof_lib --locality=10000", [lib] + events + ["--locality=10000", "--"]),
    ]


def exact_config(bin_dir):
    return "instrumented, sprof_lib --locality=exact (smaller input)", [
        f"{bin_dir}/sprof_lib", "-e", "task-clock", "-o", "run.sprof", "--locality=exact", "--"]


def main():
    build_dir, scratch, rounds = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), int(sys.argv[3])
    bin_dir = f"{build_dir}/bin"
    os.makedirs(scratch, exist_ok=True)
    env = {"LD_LIBRARY_PATH": f"{build_dir}/lib"}
    print(f"CPU time (user + sys of every thread, the runtime's writer included) of a program built with "
          f"`sprof-cc`, as a ratio to the same source built with plain `cc -O2`, run in the same round; "
          f"median (min … max) of {rounds} interleaved rounds. Goal: sampled at the default rate ≤ 3×.\n")
    exact_label, exact_prefix = exact_config(bin_dir)
    default_label, without_label = configs(bin_dir)[2][0], configs(bin_dir)[1][0]
    verdicts = []
    for w in build(bin_dir, scratch):
        name, plain, instrumented, args, exact_args, what = w.name, w.plain, w.instrumented, w.args, w.exact_args, w.what
        rows = configs(bin_dir)
        commands = {"plain": [plain] + args, "plain (smaller input)": [plain] + exact_args,
                    exact_label: exact_prefix + [instrumented] + exact_args}
        for label, prefix in rows:
            commands[label] = (prefix or []) + [instrumented] + args
        results = measure.interleaved(list(commands), rounds,
                                      lambda k: measure.run(commands[k], cwd=scratch, env=env))
        print(f"**{name}**: {what}; plain run {statistics.median(r['cpu_s'] for r in results['plain']):.2f} s CPU.\n")
        print("| build and run | CPU time / plain |")
        print("|---|---|")
        for label, base in [(label, "plain") for label, _ in rows] + [(exact_label, "plain (smaller input)")]:
            ratios = [r["cpu_s"] / p["cpu_s"] for r, p in zip(results[label], results[base])]
            med, lo, hi = measure.summary(ratios)
            print(f"| {label} | {med:.2f}× ({lo:.2f} … {hi:.2f}) |")
            if label in (default_label, without_label):
                verdicts.append((name, label, med))
        print()
    # What sampling adds over sprof_lib's own cost (its start, its event ticks, writing the profile),
    # which a short run pays in full: the column that tells the sampler's cost from the run's length.
    sampled = {n: m for n, label, m in verdicts if label == default_label}
    without = {n: m for n, label, m in verdicts if label == without_label}
    missed = [f"{n} ({m:.2f}×)" for n, m in sampled.items() if m > 3]
    print("Goal at the default rate: " + ("met by every workload" if not missed else "**missed** by " + ", ".join(missed))
          + "; sampling's own share (the default rate's ratio minus sprof_lib's without --locality): "
          + ", ".join(f"{n} +{sampled[n] - without[n]:.2f}×" for n in sampled) + ".\n")


main()

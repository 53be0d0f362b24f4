#!/usr/bin/env python3
"""Call paths of the call_tree workload against what it measured itself.

usage: check_call_paths.py SPROF PROFILE TRUTH LABEL

* --callers leaf: the shares of caller_a and caller_b within 2 percentage
  points of the shares the callers timed with their own thread CPU clock;
* --inclusive: the leaf's inclusive time share of the run within 2 pp of its
  measured share, and its callers (never sampled in themselves) listed;
* --export folded: the lines' counts add up to the flat report's samples;
  the paths through bottom hold recurse as often as the program recursed;
* the qsort callback: where its chain goes through libc (built without
  frame pointers) is printed, with compare's inclusive share and qsort's
  time by its caller's clock; neither is judged: libc's frames break the
  chain (msort_with_tmp is seen calling compare; sort_numbers and qsort
  are not on the path).
"""
import csv
import io
import subprocess
import sys
import tempfile
import os

sprof, profile, truth_path, label = sys.argv[1:5]
truth = {k: float(v) for k, v in (line.split() for line in open(truth_path))}
failures = []


def check(ok, what):
    print(("ok  " if ok else "FAIL") + f" {label}: {what}")
    if not ok:
        failures.append(what)


def rows(*args):
    out = subprocess.run([sprof, "--format", "csv", *args, profile], check=True, capture_output=True, text=True)
    return list(csv.DictReader(io.StringIO(out.stdout)))


# Callers of the leaf.
callers = {r["caller"]: float(r["pct"]) for r in rows("--callers", "leaf")}
a, b = truth["leaf_from_a"], truth["leaf_from_b"]
for name, own in (("caller_a", a), ("caller_b", b)):
    want = 100 * own / (a + b)
    got = callers.get(name, 0.0)
    check(abs(got - want) <= 2, f"{name}'s share of leaf {got:.2f} % (its own clock: {want:.2f} %)")

# Inclusive shares of the run.
flat = rows("--inclusive")
total_s = sum(float(r["time_s"]) for r in flat)
by_name = {r["function"]: r for r in flat}
run_s = total_s
for fn, own in (("leaf", a + b), ("bottom", truth["bottom_s"])):
    got = 100 * float(by_name[fn]["incl_time_s"]) / run_s if fn in by_name else 0.0
    check(abs(got - 100 * own / run_s) <= 2,
          f"{fn}'s inclusive share {got:.2f} % (its own clock: {100 * own / run_s:.2f} % of {run_s:.2f} s)")
main = by_name.get("main")
check(main is not None and int(main["samples"]) < 0.01 * int(main["incl_samples"]),
      "main listed by its inclusive samples, though hardly ever sampled in itself")

# The folded export.
with tempfile.TemporaryDirectory() as tmp:
    folded_path = os.path.join(tmp, "out.folded")
    subprocess.run([sprof, "--export", "folded", folded_path, profile], check=True, capture_output=True)
    folded = []
    for line in open(folded_path):
        path, count = line.rstrip("\n").rsplit(" ", 1)
        folded.append((path.split(";"), int(count)))
samples = sum(int(r["samples"]) for r in rows())  # the plain flat report: every sample, with a chain or not
counted = sum(c for _, c in folded)
check(counted == samples, f"folded counts add up to {counted}, the flat report has {samples} samples")

depth = int(truth["recursion_depth"])
depths = {}
for frames, count in folded:
    if "bottom" in frames:
        n = frames.count("recurse")
        depths[n] = depths.get(n, 0) + count
through = sum(depths.values())
exact = depths.get(depth, 0)
check(through > 0 and exact >= 0.95 * through,
      f"{exact} of {through} samples under bottom have recurse {depth} times deep (depths seen: {sorted(depths.items())})")

# The qsort callback: what frame pointers give through libc (measured, not judged).
under_compare = [(frames, c) for frames, c in folded if "compare" in frames]
n_compare = sum(c for _, c in under_compare)
reach = sum(c for frames, c in under_compare if "sort_numbers" in frames)
outer = {}
for frames, c in under_compare:
    i = frames.index("compare")
    caller = frames[i - 1] if i > 0 else "[root]"
    outer[caller] = outer.get(caller, 0) + c
compare_pct = 100 * float(by_name["compare"]["incl_time_s"]) / run_s if "compare" in by_name else 0.0
print(f"note {label}: compare: {n_compare} samples, inclusive {compare_pct:.2f} % of the run "
      f"(qsort, by its caller's clock: {100 * truth['qsort_s'] / run_s:.2f} %); {reach} reach sort_numbers through libc's qsort; "
      f"callers seen: {sorted(outer.items(), key=lambda kv: -kv[1])[:4]}")

sys.exit(1 if failures else 0)

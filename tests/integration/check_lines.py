#!/usr/bin/env python3
"""Checks the reports of the lines workload (tests/workloads/lines.c) against
the CPU seconds it measured itself: `sprof --lines` with --inline and
--no-inline (lines-MODE.csv) and the flat profile (flat-MODE.csv) in DIR.
The lines are given by the test, which found them in the source.

usage: check_lines.py TRUTH.txt DIR LABEL plain=N inlined=N call=N

A share is within sampling error when it is within 3 binomial standard
deviations of the profile's sample count, plus 1 point.
"""
import csv
import math
import os
import sys


def main():
    truth_file, where, label = sys.argv[1:4]
    line = {k: int(v) for k, v in (a.split("=") for a in sys.argv[4:])}
    truth = {k: float(v) for k, v in (l.split() for l in open(truth_file) if l.strip())}
    read = lambda name: list(csv.DictReader(open(os.path.join(where, name))))
    errors = []

    def share(rows, want_s, what, **match):
        """The time share of the rows matching `match` against want_s of the thread's CPU time."""
        n = sum(int(r["samples"]) for r in rows)
        got = sum(float(r["time_pct"]) for r in rows if all(r[k] == str(v) for k, v in match.items())) / 100
        want = want_s / truth["thread_cpu_s"]
        tol = 3 * math.sqrt(want * (1 - want) / n) + 0.01
        verdict = "ok" if abs(got - want) <= tol else "DIFFERS"
        print(f"{label}: {what}: {100 * got:.2f}% of the time, truth {100 * want:.2f}% "
              f"(tolerance {100 * tol:.2f}, {n} samples) {verdict}")
        if verdict != "ok":
            errors.append(what)

    for mode in ("inline", "no-inline"):
        rows = read(f"lines-{mode}.csv")
        for r in rows:
            if r["source"].startswith("lines.c:") and not r["file"].endswith("/lines.c"):
                errors.append(f"{r['source']} has no full path: {r['file']!r}")
        share(rows, truth["plain_cpu_s"], f"--lines --{mode}: lines.c:{line['plain']} plain_loop",
              source=f"lines.c:{line['plain']}", function="plain_loop", line=line["plain"])
        if mode == "inline":
            share(rows, truth["inlined_cpu_s"], f"--lines --inline: lines.c:{line['inlined']} inlined_steps",
                  source=f"lines.c:{line['inlined']}", function="inlined_steps")
        else:
            share(rows, truth["inlined_cpu_s"], f"--lines --no-inline: lines.c:{line['call']} with_inlined",
                  source=f"lines.c:{line['call']}", function="with_inlined")
            if any(r["function"] == "inlined_steps" for r in rows):
                errors.append("--lines --no-inline shows inlined_steps as a function")

        flat = read(f"flat-{mode}.csv")
        names = {r["function"] for r in flat}
        if mode == "inline":
            share(flat, truth["inlined_cpu_s"], "flat --inline: inlined_steps", function="inlined_steps")
            share(flat, 0, "flat --inline: with_inlined's own time", function="with_inlined")
        else:
            share(flat, truth["inlined_cpu_s"], "flat --no-inline: with_inlined", function="with_inlined")
            if "inlined_steps" in names:
                errors.append("the flat profile with --no-inline shows inlined_steps")
        share(flat, truth["plain_cpu_s"], f"flat --{mode}: plain_loop", function="plain_loop")
    if errors:
        sys.exit(f"FAIL {label}: " + "; ".join(errors))


if __name__ == "__main__":
    main()

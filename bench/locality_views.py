#!/usr/bin/env python3
"""Agreement of the sampled locality views with the exact reference on real
programs nobody here wrote (Debian's bzip2 and sqlite3, bench/real_programs.py):
each runs once under `sprof_lib --locality` (the default rate, 1 in 10^4, a
fixed seed) and once under `--locality=exact` with the same input, and
`sprof --misses --format csv` ranks the locations of both by misses in a
32 KiB and a 1 MiB cache, by function and by line (an instruction, until
profiles hold source lines). Per program, cache and granularity:

* coverage: the share of the exact run's misses that fall in the sampled
  top 10 locations, against the share the exact top 10 hold (no 10
  locations hold more); their ratio is the agreement measure;
* the Jaccard index of the two top-10 sets (|A ∩ B| / |A ∪ B|);
* where the sampled top location stands in the exact ranking;
* `sprof --use` at 32 KiB: over the exact top-10 lines (load and store rows),
  the mean |sampled − exact| spatial use, weighted by the exact misses.

Prints a Markdown section on stdout.

usage: locality_views.py BUILD_DIR SCRATCH_DIR QUICK
"""
import csv
import io
import os
import subprocess
import sys
import time

import real_programs

RATE = 10_000
SEED = 7
TOP = 10
CACHES = "32K,1M"


def run(cmd, env):
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def table(sprof, args):
    """The CSV rows of a sprof report, and its wall time."""
    start = time.monotonic()
    out = subprocess.run([sprof, *args, "--format", "csv"], check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out))), time.monotonic() - start


def agreement(sampled, exact, column):
    """(coverage, best coverage, Jaccard, exact rank of the sampled top) of two --misses tables."""
    exact_misses = {r["location"]: float(r[column]) for r in exact}
    total = sum(exact_misses.values())
    top_sampled = [r["location"] for r in sorted(sampled, key=lambda r: -float(r[column]))[:TOP]]
    ranked = sorted(exact_misses, key=lambda loc: -exact_misses[loc])
    top_exact = ranked[:TOP]
    covered = sum(exact_misses.get(loc, 0) for loc in top_sampled) / total
    best = sum(exact_misses[loc] for loc in top_exact) / total
    jaccard = len(set(top_sampled) & set(top_exact)) / len(set(top_sampled) | set(top_exact))
    rank = ranked.index(top_sampled[0]) + 1 if top_sampled[0] in exact_misses else None
    return covered, best, jaccard, rank


def use_error(sampled, exact):
    """Misses-weighted mean |sampled − exact| spatial use over the exact top-10 rows that both have."""
    s = {(r["location"], r["access"]): r for r in sampled}
    top = sorted(exact, key=lambda r: -float(r["misses"]))[:TOP]
    both = [(r, s[(r["location"], r["access"])]) for r in top
            if (r["location"], r["access"]) in s and s[(r["location"], r["access"])]["spatial_use"]]
    weight = sum(float(e["misses"]) for e, _ in both)
    if not weight:
        return None, 0
    error = sum(float(e["misses"]) * abs(float(e["spatial_use"]) - float(x["spatial_use"])) for e, x in both) / weight
    return error, len(both)


def main():
    build_dir, scratch, quick = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3] == "1"
    sprof, lib = f"{build_dir}/bin/sprof", f"{build_dir}/bin/sprof_lib"
    env = dict(os.environ, LD_LIBRARY_PATH=f"{build_dir}/lib")
    os.makedirs(scratch, exist_ok=True)
    rows, times, notes = [], [], []
    for w in real_programs.prepare(build_dir):
        args = w.exact_args if quick else w.args
        profiles = {m: f"{scratch}/{w.name}.{m}.sprof" for m in ("sampled", "exact")}
        run([lib, "-e", "task-clock", "--locality=exact", "-o", profiles["exact"], w.instrumented, *args], env)
        run([lib, "-e", "task-clock", f"--locality={RATE}", "--locality-seed", str(SEED), "-o", profiles["sampled"],
             w.instrumented, *args], env)
        for by in ("function", "line"):
            t = {m: table(sprof, ["--misses", "--by", by, "--cache", CACHES, p]) for m, p in profiles.items()}
            times.append(t["sampled"][1])
            for column, cache in (("misses", "32 KiB"), ("misses_1M", "1 MiB")):
                covered, best, jaccard, rank = agreement(t["sampled"][0], t["exact"][0], column)
                rows.append((w.name, by, cache, covered, best, jaccard, rank))
        use = {m: table(sprof, ["--use", "--cache", "32K", p])[0] for m, p in profiles.items()}
        error, n = use_error(use["sampled"], use["exact"])
        pairs_time = table(sprof, ["--reuse-pairs", profiles["sampled"]])[1]
        notes.append(f"* **{w.name}**: {w.what}. Spatial use at 32 KiB, over the {n} of the exact top-10 lines "
                     f"(load and store rows) the sampled run also has: mean |sampled − exact| "
                     f"{'%.1f' % error if error is not None else '-'} points, weighted by the exact misses. "
                     f"`--reuse-pairs` on the sampled profile: {pairs_time:.2f} s.")

    print(f"Each program runs once sampled (`sprof_lib --locality={RATE} --locality-seed {SEED}`) and once exact "
          "(`--locality=exact`) with the same input; `sprof --misses --by function|line --cache 32K,1M` ranks the "
          "locations of both by misses (a line is `FILE:LINE`; an instruction, `function+0xOFF`, where the "
          "profile holds no source line for it). *Coverage*: the share of the exact run's misses that fall in the "
          "sampled top 10; *best*: the "
          "share the exact top 10 hold, which no 10 locations beat; *agreement* = coverage / best. *Jaccard*: "
          "|sampled top 10 ∩ exact top 10| / |∪|. *Rank*: where the sampled top location stands among the exact "
          "ones. Sampled misses charge a line never reused to its last access (the cold miss it stands for); the "
          "exact run charges it to the first.\n")
    print("| program | by | cache | coverage of exact misses | best (exact top 10) | agreement | Jaccard | "
          "rank of sampled top |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for name, by, cache, covered, best, jaccard, rank in rows:
        print(f"| {name} | {by} | {cache} | {100 * covered:.1f} % | {100 * best:.1f} % | "
              f"{100 * covered / best:.1f} % | {jaccard:.2f} | {rank if rank else '-'} |")
    lines = [r for r in rows if r[1] == "line"]
    functions = [r for r in rows if r[1] == "function"]
    mean = lambda xs: sum(xs) / len(xs)
    print(f"\nMean agreement: by function {100 * mean([c / b for _, _, _, c, b, _, _ in functions]):.1f} %, "
          f"by line {100 * mean([c / b for _, _, _, c, b, _, _ in lines]):.1f} %; mean Jaccard by function "
          f"{mean([j for *_, j, _ in functions]):.2f}, by line {mean([j for *_, j, _ in lines]):.2f}. "
          f"`sprof --misses` on a sampled profile: at most {max(times):.2f} s.\n")
    for n in notes:
        print(n)


main()

#!/usr/bin/env python3
"""make check's event corpus: fixed seeds of tests/corpus/generate.py, each
run under sprof_lib (this user, and nobody when root) and sprof_pt, read
with both estimators. Every program must build and run, and every run be
profiled and read; the per-pattern table and issue 26's targets
(tests/corpus/corpus.py: per function, per pattern, and every run's sums
against its total) are printed. The issue puts its targets on the corpus in
the benchmark, not in timed tests: a target missed fails only with
--targets (bench/event_corpus.py judges them over 300 programs). Exits 1 on
a failed run (or a missed target with --targets), 77 (skip) where the
corpus cannot run.

usage: check.py BUILD_DIR [--seeds FIRST-LAST] [--tick-ms MS] [--budget-s S] [--targets] [--keep]
"""
import argparse
import os
import sys

import corpus
import generate

DEFAULT_SEEDS = "1-20"


def seed_range(text):
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--seeds", default=DEFAULT_SEEDS, type=seed_range)
    ap.add_argument("--tick-ms", type=float, default=1.0)
    ap.add_argument("--budget-s", type=float, default=0.3)
    ap.add_argument("--keep", action="store_true", help="keep the programs, runs and profiles")
    ap.add_argument("--targets", action="store_true", help="exit 1 when one of issue 26's targets is missed")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    try:
        corpus.preconditions(build)
    except corpus.Skip as e:
        print(f"skipped: {e}")
        return 77
    patterns = {f["pattern"] for s in a.seeds for f in generate.draw(s)["functions"]}
    if patterns != set(generate.PATTERNS):  # make check's seeds must hold every pattern
        missing = f"seeds {a.seeds[0]}-{a.seeds[-1]} lack the patterns {sorted(set(generate.PATTERNS) - patterns)}"
        if a.seeds == seed_range(DEFAULT_SEEDS):
            sys.exit(f"check.py: {missing}: choose other seeds")
        print(f"note: {missing}")
    me = corpus.users()
    variants = [("sprof_lib", u, "quiet") for u in me] + [("sprof_pt", me[0], "quiet")]
    ws = corpus.Workspace(build, keep=a.keep)
    data = {"cases": [], "sums": [], "perf": []}
    try:
        for seed in a.seeds:
            corpus.run_program(ws, seed, variants, a.tick_ms, a.budget_s, data)
    except corpus.measure.Failed as e:
        print(f"FAIL: seed {seed}: {e}")
        return 1
    finally:
        for name in ("cases", "sums", "perf"):  # kept with --keep, to look at a failure
            corpus.tr.write_csv(data[name], os.path.join(ws.root, f"{name}.csv"))
        ws.close()
    print(f"{len(a.seeds)} programs (seeds {a.seeds[0]}-{a.seeds[-1]}), tick {a.tick_ms:g} ms, "
          f"~{a.budget_s:g} s of CPU each; {', '.join('/'.join(v[:2]) for v in variants)}; both estimators\n")
    summary = corpus.pattern_summary(data["cases"])
    print(corpus.table(summary))
    for event, (med, worst, n) in corpus.conservation_summary(data["sums"]).items():
        print(f"conservation {event}: sum over functions vs the truth's total: median {med:.1f} %, "
              f"worst {worst:.1f} % over {n} (run, estimator) pairs")
    perf = corpus.perf_conservation(data["sums"], data["perf"])
    for event, (med, worst, n, tmed, tworst) in perf.items():
        print(f"conservation {event}: sum vs perf stat's total: median {med:.1f} %, worst {worst:.1f} % "
              f"({n}); perf vs the truth's total: median {corpus.fmt(tmed)}, worst {corpus.fmt(tworst)}")
    bad = corpus.failures(summary, data["sums"], data["perf"])
    for b in bad:
        print(f"{'FAIL' if a.targets else 'target missed'}: {b}")
    return 1 if bad and a.targets else 0


if __name__ == "__main__":
    sys.exit(main())

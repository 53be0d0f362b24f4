#!/usr/bin/env python3
"""The event corpus (issue 26): per-function event estimates on random
programs that measure their own truth.

Random programs of tests/corpus/generate.py (seeds 1, 2, …), each run under
both collectors, as root and as nobody (user-space-only counting), quiet and
beside two busy loops, and read with both estimators; the cases and the
targets are tests/corpus/corpus.py's. Writes the cases to
DATA_DIR/event-corpus.csv and prints a Markdown section on stdout.

usage: event_corpus.py BUILD_DIR DATA_DIR PROGRAMS [TICK_MS BUDGET_S]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "corpus"))
import corpus  # noqa: E402
import measure  # noqa: E402

COLLECTORS = ("sprof_lib", "sprof_pt")
LOADS = ("quiet", "busy")


def breakdown(cases):
    """The per-pattern table for every (collector, estimator, user, load)."""
    lines = ["| pattern | collector | estimator | user | load | cases | median \\|error\\| | 90th pct | worst | "
             "median bias | within target | interval covers |", "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    keys = sorted({(c["collector"], c["estimator"], c["user"], c["load"]) for c in cases})
    summaries = {k: corpus.pattern_summary([c for c in cases if (c["collector"], c["estimator"], c["user"],
                                                                   c["load"]) == k]) for k in keys}
    for pattern in ("time",) + corpus.generate.PATTERNS:
        for k in keys:
            r = summaries[k].get(pattern)
            if r:
                within = f"{r['share_within']:.0%} (shares)" if pattern == "time" else f"{r['within']:.0%}"
                lines.append(f"| {pattern} | {' | '.join(k)} | {r['cases']} | {corpus.fmt(r['median'])} | "
                             f"{corpus.fmt(r['p90'])} | {corpus.fmt(r['worst'])} | {corpus.fmt(r['bias'])} | "
                             f"{within} | {r['coverage']:.0%} |")
    return "\n".join(lines)


def main():
    build, data_dir, programs = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    tick_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    budget_s = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
    corpus.preconditions(build)
    variants = [(c, u, load) for c in COLLECTORS for u in corpus.users() for load in LOADS]
    ws = corpus.Workspace(build)
    data = {"cases": [], "sums": [], "perf": []}
    failed = []
    try:
        for seed in range(1, programs + 1):
            try:
                corpus.run_program(ws, seed, variants, tick_ms, budget_s, data)
            except measure.Failed as e:
                failed.append(f"seed {seed}: {e}")
    finally:
        ws.close()
    corpus.tr.write_csv(data["cases"], os.path.join(data_dir, "event-corpus.csv"))
    corpus.tr.write_csv(data["sums"], os.path.join(data_dir, "event-corpus-sums.csv"))
    corpus.tr.write_csv(data["perf"], os.path.join(data_dir, "event-corpus-perf.csv"))
    print(__doc__.split("usage:")[0].split("\n", 2)[2].strip() + "\n")
    print(f"{programs} programs, sampled every {tick_ms:g} ms, ~{budget_s:g} s of CPU each; variants: "
          f"{', '.join('/'.join(v) for v in variants)}; both estimators"
          + (f"; failed: {'; '.join(failed)}" if failed else "") + ".\n")
    if programs < 300:
        print(f"**{programs} programs: fewer than the 300 of the benchmark; not to be quoted.**\n")
    print("A case is (program, variant, estimator, function, event); *error* is |estimate − truth| / truth over "
          f"the cases with a truth of at least {corpus.MIN_TOTAL} events; *within target* counts every case: within "
          "5 % of the truth, or within 1 % of the run's total for a function under 5 % of it (time: its share "
          "within 1 pp). A function's events of a kind it does not make are pattern *never*.\n")
    print("### All variants\n")
    summary = corpus.pattern_summary(data["cases"])
    print(corpus.table(summary) + "\n")
    print("### Conservation: each run's sum over functions\n")
    print("| event | vs the truth's total: median | worst | runs × estimators | vs perf stat (another run, quiet, this user): "
          "median | worst | perf stat vs its run's truth: median | worst |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    perf = corpus.perf_conservation(data["sums"], data["perf"])
    for event, (med, worst, n) in corpus.conservation_summary(data["sums"]).items():
        p = perf.get(event, (None,) * 5)
        print(f"| `{event}` | {med:.1f} % | {worst:.1f} % | {n} | {corpus.fmt(p[0])} | {corpus.fmt(p[1])} | "
              f"{corpus.fmt(p[3])} | {corpus.fmt(p[4])} |")
    print("\n### Targets\n")
    bad = corpus.failures(summary, data["sums"], data["perf"])
    print("\n".join(f"* missed: {b}" for b in bad) if bad else "* every target met")
    print("\n### Per collector, estimator, user and load\n")
    print(breakdown(data["cases"]) + "\n")


if __name__ == "__main__":
    main()

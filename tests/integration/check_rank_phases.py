#!/usr/bin/env python3
"""Each rank's own phases (`sprof --phases --format csv` of a job) against
the time line the rank measured for itself (TRUTH.<rank>.timeline: its parts
in its main thread's task-clock seconds, in order). A part that lasted at least
min-phase + 1 histogram intervals fills the minimum phase length wherever
the interval boundaries fall: it must be a phase of its own, compute and
fill dominated by their own function, the barrier wait by MPI's polling (by
neither). Its phase begins within one interval of where the part begins —
or of where the shorter parts right before it begin, which are no phase of
their own and may join it (MPI_Init before compute) — and ends likewise.
Shorter parts are not asserted, nor a part the profile holds in fewer than
min-phase whole rows: in a user-space-only profile the kernel drops the
ticks of a wait spent in system calls (Open MPI yields the CPU at every poll
when oversubscribed), and the few samples left make rows much longer than
an interval; no analysis finds a phase in rows that are not there. The job
is sized so that compute and fill are long enough on every rank: were they
not, the check would check nothing, and says so.

usage: check_rank_phases.py PHASES.csv TIMELINE_PREFIX TRUTH_PREFIX LABEL [--ranks 4] [--min-phase 3]
  (TIMELINE_PREFIX.<rank>.csv: `sprof --timeline --format csv` of the rank)
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from phase_truth import cpu_axis, describe, phase_edges, read_truth, row_reach, slack_of  # noqa: E402

CHECKED = ("compute", "fill", "barrier")


def rows_within(cpu_at, start, end, interval_s):
    """The time line's rows that lie within [start, end] (to a tenth of an
    interval: the truth's clock and the profile's differ by a little)."""
    slack = slack_of(interval_s)
    return sum(1 for a, b in zip(cpu_at, cpu_at[1:]) if a >= start - slack and b <= end + slack)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("phases")
    ap.add_argument("timeline_prefix")
    ap.add_argument("truth_prefix")
    ap.add_argument("label")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--min-phase", type=int, default=3)  # sprof's default --min-phase
    a = ap.parse_args()

    by_rank = {}
    for p in csv.DictReader(open(a.phases)):
        by_rank.setdefault(int(p["rank"]), []).append(p)
    errors = []
    if sorted(by_rank) != list(range(a.ranks)):
        errors.append(f"phases of ranks {sorted(by_rank)}, not of ranks 0-{a.ranks - 1}")
    for rank, phases in sorted(by_rank.items()):
        if [int(p["phase"]) for p in phases] != list(range(1, len(phases) + 1)):
            errors.append(f"rank {rank}: phases numbered {[p['phase'] for p in phases]}")
        interval_s, cpu_at = cpu_axis(f"{a.timeline_prefix}.{rank}.csv")
        edges = phase_edges(phases, cpu_at)
        parts = read_truth(f"{a.truth_prefix}.{rank}.timeline")
        print(f"{a.label} rank {rank}: interval {interval_s:.4f} s; phases {describe(phases, edges)}")
        print(f"{a.label} rank {rank}: truth " + " ".join(f"{n}[{s:.3f},{e:.3f}]" for n, s, e in parts))
        long = [e - s >= (a.min_phase + 1) * interval_s and rows_within(cpu_at, s, e, interval_s) >= a.min_phase
                for _, s, e in parts]
        checked = [n for (n, _, _), is_long in zip(parts, long) if is_long and n in CHECKED]
        if not {"compute", "fill"} <= set(checked):
            errors.append(f"rank {rank}: compute or fill shorter than {a.min_phase + 1} intervals: "
                          "the job is too small to test its phases")
        for i, (part, start, end) in enumerate(parts):
            if part not in checked:
                continue
            # The phase may hold the short parts right before and after it.
            first, last = i, i
            while first > 0 and not long[first - 1]:
                first -= 1
            while last + 1 < len(parts) and not long[last + 1]:
                last += 1
            slack = slack_of(interval_s)
            starts = (row_reach(cpu_at, parts[first][1], slack)[0], row_reach(cpu_at, start, slack)[1])
            ends = (row_reach(cpu_at, end, slack)[0], row_reach(cpu_at, parts[last][2], slack)[1])
            found = [p for p, (s, e) in zip(phases, edges) if starts[0] <= s <= starts[1] and ends[0] <= e <= ends[1]]
            if not found:
                errors.append(f"rank {rank}: no phase of {part} from [{starts[0]:.3f},{starts[1]:.3f}] "
                              f"to [{ends[0]:.3f},{ends[1]:.3f}]")
                continue
            dominant = found[0]["dominant_function"]
            if part == "barrier" and dominant in ("compute", "fill"):
                errors.append(f"rank {rank}: the barrier wait's phase is dominated by {dominant}")
            elif part != "barrier" and dominant != part:
                errors.append(f"rank {rank}: the phase of {part} is dominated by {dominant}")
    for e in errors:
        print(f"{a.label}: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

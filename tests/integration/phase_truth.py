"""Phases of a real profile against the time line a workload measured for
itself: shared by the tests that check `sprof --phases` on real runs.

The truth is in the main thread's task-clock seconds (workload_common.h:
task_clock_s); the profile's intervals carry wall-clock start_s/end_s, which
run ahead of CPU time whenever the machine is busy. So phases are compared
on the profile's CPU-time axis: the running sum of its intervals' reference
seconds (`sprof --timeline`'s time_s), the same task-clock."""
import csv
import statistics


def read_truth(path):
    """[(part, start_s, end_s)] from lines `PART START END` ('#': comment)."""
    return [(n, float(a), float(b)) for n, a, b in
            (line.split() for line in open(path) if line.strip() and not line.startswith("#"))]


def cpu_axis(timeline_csv):
    """(one interval in CPU seconds, the CPU time at each row boundary)."""
    rows = list(csv.DictReader(open(timeline_csv)))
    cpu_at = [0.0]
    for r in rows:
        cpu_at.append(cpu_at[-1] + float(r["time_s"]))
    return statistics.median(float(r["time_s"]) for r in rows), cpu_at


def phase_edges(phases, cpu_at):
    """Each phase's (start, end) on the CPU-time axis; the phases must cover
    the time line, row after row."""
    assert sum(int(p["intervals"]) for p in phases) == len(cpu_at) - 1, "phases do not cover the time line"
    edges, first = [], 0
    for p in phases:
        last = first + int(p["intervals"])
        edges.append((cpu_at[first], cpu_at[last]))
        first = last
    return edges


def describe(phases, edges):
    return " ".join(f"{p['label']}:{p['dominant_function']}[{a:.3f},{b:.3f}]" for p, (a, b) in zip(phases, edges))


def row_reach(cpu_at, t, slack):
    """(lo, hi): the row boundaries a phase boundary at CPU time t can be
    found at. Only row boundaries can be found, so either end of the row
    that holds t: the last boundary at or before t and the first at or
    after it, widened by `slack` for the little by which the truth's clock
    and the profile's differ. Rows differ in length (the ticks' periods are
    dithered), so this reads the time line's own rows, not a mean interval."""
    lo = max((b for b in cpu_at if b <= t - slack), default=cpu_at[0])
    hi = min((b for b in cpu_at if b >= t + slack), default=cpu_at[-1])
    return lo, hi


def slack_of(interval_s):
    """The clock difference allowed between the truth and the profile."""
    return interval_s / 10


def within_one_row(got, want, cpu_at, interval_s):
    """Whether each end of the (start, end) pair `got` lies at a boundary of
    the row that holds the same end of `want` (row_reach)."""
    slack = slack_of(interval_s)
    return all(lo - 1e-9 <= g <= hi + 1e-9 for g, (lo, hi) in zip(got, (row_reach(cpu_at, w, slack) for w in want)))


def parts_found(phases, truth, cpu_at, interval_s):
    """What is wrong with `phases` as the parts of `truth` (None: nothing):
    a phase per part, one label per kind of part (the same kind, the same
    label; different kinds, different labels), each boundary between two
    phases at the rows that hold the truth's (within_one_row)."""
    found = [p["label"] for p in phases]
    kinds = [n for n, _, _ in truth]
    if len(found) != len(kinds):
        return f"{len(found)} phases {' '.join(found)}, expected {len(kinds)} ({' '.join(kinds)})"
    if len(set(zip(found, kinds))) != len(set(found)) or len(set(found)) != len(set(kinds)):
        return f"labels {' '.join(found)} do not follow the parts {' '.join(kinds)}"
    # Before the first part the program starts (python3's start-up: tens of
    # ms) and after the last it exits, each far shorter than a phase: the
    # first phase starts with the time line and the last ends with it. Their
    # rows are of CPU time, and on a busy machine the first held 50 ticks
    # bunched in 16 ms, all before the first part's start: that row's end, not
    # the time line's start, was then the only start allowed.
    bounds = [[start, end] for _, start, end in truth]
    bounds[0][0], bounds[-1][1] = cpu_at[0], cpu_at[-1]
    for got, (name, start, end), allowed in zip(phase_edges(phases, cpu_at), truth, bounds):
        if not within_one_row(got, allowed, cpu_at, interval_s):
            return f"phase {got[0]:.3f}-{got[1]:.3f} s, truth {name} {start:.3f}-{end:.3f} s: not at the rows that hold the truth's ends"
    return None

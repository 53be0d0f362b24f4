"""Watching `sprof top` while a workload runs, and judging what it showed
against the workload's own clock.

  live_view.py screen SOCKET TARGET DONE_FILE OBSERVATIONS
      polls the tmux pane (capture-pane) until DONE_FILE exists; writes one
      line per change of what the screen shows: monotonic time (taken after
      the capture returned, so never early), interval, top function.
  live_view.py csv OBSERVATIONS CSV_OUT -- SPROF_TOP_COMMAND...
      runs sprof top with its output on a pipe; keeps the CSV as it came and
      the monotonic time each interval's rows arrived.
  live_view.py check WALL_TRUTH OBSERVATIONS TIMELINE_CSV WHAT
      each phase change of the workload (CLOCK_MONOTONIC seconds, written by
      the workload itself) must show as the new top function within two
      histogram intervals (their median wall length in the finished
      profile's time line); before it shows, only the phase before may be
      shown on top.
  live_view.py sparkline SCREEN TIMELINE_CSV
      the final screen's sparklines against each function's share of the
      last intervals in the finished profile.
"""
import csv
import os
import statistics
import subprocess
import sys
import time

BARS = "▁▂▃▄▅▆▇█"


def parse_screen(text):
    """(interval, [(history, function)…]) of a screen; interval None before one is complete."""
    lines = text.splitlines()
    interval = None
    for line in lines:
        if line.startswith("interval "):
            interval = int(line.split()[1].rstrip(":"))
    head = next((i for i, line in enumerate(lines) if line.lstrip().startswith("time%")), None)
    rows = []
    if head is not None:
        header = lines[head]
        at_history, at_function = header.index("history"), header.index("function")
        for line in lines[head + 1:]:
            if not line.strip():
                break
            rows.append((line[at_history:at_history + 24], line[at_function:].strip()))
    return interval, rows


def watch_screen(socket, target, done, out_path):
    last = None
    with open(out_path, "w") as out:
        while True:
            finished = os.path.exists(done)
            text = subprocess.run(["tmux", "-L", socket, "capture-pane", "-p", "-t", target],
                                  capture_output=True, text=True, check=True).stdout
            now = time.monotonic()
            interval, rows = parse_screen(text)
            state = (interval, rows[0][1] if rows else None)
            if interval is not None and state != last:
                out.write(f"{now:.4f} {state[0]} {state[1]}\n")
                out.flush()
                last = state
            if finished:
                return
            time.sleep(0.03)


def watch_csv(out_path, csv_path, command):
    top = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    header = None
    with open(out_path, "w") as out, open(csv_path, "w") as keep:
        rows = {}  # interval -> [(function, time_s)]
        for line in top.stdout:
            now = time.monotonic()
            keep.write(line)
            keep.flush()
            fields = next(csv.reader([line]))
            if header is None:
                header = fields
                continue
            row = dict(zip(header, fields))
            if row["interval"] == "all":  # the run's summary, once it ended
                continue
            interval = int(row["interval"])
            if interval not in rows:  # the interval's first row: when the interval arrived
                rows[interval] = now
                out.write(f"{now:.4f} {interval} {row['function']}\n")  # rows come most time first
                out.flush()
    sys.exit(top.wait())


def phases(path):
    return [(n, float(a), float(b)) for n, a, b in (l.split() for l in open(path) if not l.startswith("#"))]


def observations(path):
    return [(float(t), int(i), f.strip()) for t, i, f in (l.split(maxsplit=2) for l in open(path))]


def interval_seconds(timeline_csv):
    rows = list(csv.DictReader(open(timeline_csv)))
    spans = {r["interval"]: float(r["end_s"]) - float(r["start_s"]) for r in rows}
    return statistics.median(spans.values())


def check(truth_path, obs_path, timeline_csv, what):
    """Each phase change on top within two intervals: by the interval after the
    one it happened in. The interval it happened in is the first one shown
    after it (an interval shows once complete). Counted in intervals, not in
    seconds: on a busy machine an interval's wall time varies from one to the
    next (each is so much of the program's CPU time)."""
    truth, obs = phases(truth_path), observations(obs_path)
    interval = interval_seconds(timeline_csv)
    assert obs, "sprof top showed nothing"
    assert obs[0][2] == truth[0][0], f"first shown {obs[0][2]}, the run began with {truth[0][0]}"
    late = []
    for (old, _, _), (new, start, _) in zip(truth, truth[1:]):
        shown = [o for o in obs if o[0] >= start and o[2] == new]
        assert shown, f"{new} (from {start:.3f}) never shown on top"
        during = next(o[1] for o in obs if o[0] >= start)
        wrong = [o for o in obs if start <= o[0] < shown[0][0] and o[2] != old]
        assert not wrong, f"before {new} showed, {wrong[0][2]} was on top (the phase before was {old})"
        print(f"{what}: {old} -> {new} at {start:.3f}, in interval {during}: on top in interval {shown[0][1]}, "
              f"{shown[0][0] - start:.3f} s later")
        if shown[0][1] > during + 1:
            late.append(f"{new} at {start:.3f}: in interval {during}, on top only in interval {shown[0][1]}")
    print(f"{what}: histogram interval {interval:.3f} s of wall time (median)")
    assert not late, f"phase changes shown later than two intervals: {late}"


def sparkline(screen_path, timeline_csv):
    _, rows = parse_screen(open(screen_path).read())
    assert rows, "no table on the final screen"
    timeline = list(csv.DictReader(open(timeline_csv)))
    intervals = sorted({int(r["interval"]) for r in timeline})[-24:]
    total = {i: 0.0 for i in intervals}
    share = {}
    for r in timeline:
        i = int(r["interval"])
        if i in total:
            total[i] += float(r["time_s"])
            share[(i, r["function"])] = float(r["time_s"])
    for history, function in rows:
        want = ""
        for i in intervals:
            s = share.get((i, function), 0.0) / total[i] if total[i] else 0.0
            want += BARS[min(7, max(0, int(s * 8 - 1e-9)))] if s > 0 else " "
        want = want.rjust(24)
        assert history == want, f"{function}: sparkline '{history}', its shares give '{want}'"
        print(f"sparkline of {function}: '{history}' as its shares of the last {len(intervals)} intervals")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "screen":
        watch_screen(*sys.argv[2:6])
    elif mode == "csv":
        watch_csv(sys.argv[2], sys.argv[3], sys.argv[5:])
    elif mode == "check":
        check(*sys.argv[2:6])
    elif mode == "sparkline":
        sparkline(*sys.argv[2:4])
    else:
        sys.exit(f"unknown mode {mode}")

#!/usr/bin/env python3
"""The truth of an attach's window: attach_target's cumulative CPU times
per function (stamped with CLOCK_REALTIME after every call), interpolated at
the window's ends and subtracted. Prints "KEY SECONDS" lines for
check_shares.py; fails when a function ran nowhere in the window.

usage: attach_window.py TRUTH.txt PROFILE_INFO.json TIMELINE.csv
  (the window: the profile's start, from `sprof --info --format json`, to
  the end of its last interval, from `sprof --timeline --format csv`)
"""
import bisect
import csv
import json
import sys

KEYS = ("heavy_cpu_s", "light_cpu_s", "late_cpu_s")


def at(snaps, t):
    """The cumulative times at realtime t, linear between the stamps around it."""
    times = [s[0] for s in snaps]
    i = bisect.bisect_right(times, t)
    if i == 0 or i == len(snaps):
        sys.exit(f"FAIL: the window's end {t:.0f} is outside the program's stamps")
    (t0, *a), (t1, *b) = snaps[i - 1], snaps[i]
    f = (t - t0) / (t1 - t0) if t1 > t0 else 0.0
    return [x + f * (y - x) for x, y in zip(a, b)]


def main():
    truth, info, timeline = sys.argv[1:4]
    snaps = [tuple(float(v) for v in line.split()[1:]) for line in open(truth) if line.startswith("snap ")]
    start_ns = json.load(open(info))["profiles"][0]["start_unix_ns"]
    end_s = max(float(r["end_s"]) for r in csv.DictReader(open(timeline)))
    begin, end = at(snaps, start_ns), at(snaps, start_ns + end_s * 1e9)
    print(f"window: {end_s:.3f} s of wall time from {start_ns}", file=sys.stderr)
    for key, a, b in zip(KEYS, begin, end):
        if b - a <= 0:
            sys.exit(f"FAIL: {key} is 0 in the attach's window: the program did not run its part inside it")
        print(f"{key} {b - a:.6f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks the locality records of a run of the sweep workload (locality_dump
JSON) against the workload's own truth file. Usage:

  check_locality.py sampled DUMP TRUTH PERIOD   every sampled distance is N, ...
  check_locality.py exact DUMP TRUTH            the LRU curve steps at N lines
  check_locality.py ended DUMP MODE             a run that ended abruptly kept its records

Exits 1 with one line per failure."""
import json
import math
import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def read_truth(path):
    truth = {'arrays': [], 'loads': []}
    for line in open(path):
        words = line.split()
        if words[0] == 'thread':  # thread T array FROM TO loads L
            truth['arrays'].append((int(words[3]), int(words[4])))
            truth['loads'].append(int(words[6]))
        else:
            truth[words[0]] = int(words[1])
    return truth


def sweepers(dump, key):
    """tid → the records of that thread whose function is sweep()."""
    out = {}
    for item in dump[key]:
        name = item['sample']['function'] if key == 'samples' else item['function']
        if name == 'sweep':
            out.setdefault(item['tid'], []).append(item)
    return out


def windows_of(dump, tid):
    return [w for w in dump['windows'] if w['tid'] == tid]


def check_sampled(dump, truth, period):
    run = dump['run']
    check(run['mode'] == 'sampled' and run['sample_period'] == period and run['line_size'] == 64,
          f"run record: {run}")
    n = truth['lines']
    by_thread = sweepers(dump, 'samples')
    check(len(by_thread) == truth['threads'],
          f"sweep samples in {len(by_thread)} threads, not the {truth['threads']} that swept")
    loads = truth['loads'][0]
    for tid, samples in by_thread.items():
        distances = {}
        for s in samples:
            distances[s['distance']] = distances.get(s['distance'], 0) + 1
            check(any(lo <= s['address'] < hi for lo, hi in truth['arrays']),
                  f"thread {tid}: sample address {s['address']:#x} outside the swept arrays")
            check(s['size'] == 1 and not s['sample_write'], f"thread {tid}: sample {s} is not a 1-byte load")
            if s['distance'] is not None:
                check(s['trigger']['function'] == 'sweep', f"thread {tid}: trigger outside sweep: {s}")
        open_at_end = distances.pop(None, 0)
        # The thread's own stream: another thread sweeping the same lines adds nothing.
        check(list(distances) == [n], f"thread {tid}: sampled reuse distances {distances}, all should be {n}")
        check(open_at_end <= 10, f"thread {tid}: {open_at_end} samples without reuse (only the last sweep's)")
        # Sample points are Binomial(loads, 1/period).
        mean = loads / period
        sd = math.sqrt(mean * (1 - 1 / period))
        check(abs(len(samples) - mean) <= 5 * sd + 1,
              f"thread {tid}: {len(samples)} samples in sweep, expected {mean:.0f} ± {5 * sd:.0f}")
        windows = windows_of(dump, tid)
        accesses = sum(w['accesses'] for w in windows)
        check(loads <= accesses <= loads + 1000, f"thread {tid}: {accesses} accesses in its windows, sweep made {loads}")
        started = sum(w['samples'] for w in windows)
        all_samples = sum(1 for s in dump['samples'] if s['tid'] == tid)
        check(started == all_samples, f"thread {tid}: windows count {started} samples, the records hold {all_samples}")
        check(all(w['unseen'] == 0 for w in windows), f"thread {tid}: unseen accesses in a thread that copies nothing")
        check(any(t['tid'] == tid for t in dump['threads']), f"thread {tid}: no THREAD record")
    others = {w['tid'] for w in dump['windows']} - set(by_thread)
    check(len(others) == 1, f"threads {others} besides the sweepers: expected the main thread alone")
    unseen = sum(w['unseen'] for w in dump['windows'] if w['tid'] in others)
    want = 2 * truth['copy_bytes'] // 8
    check(unseen == want, f"main thread: {unseen} unseen words, its memcpy moved {want} (bytes read and written / 8)")


def check_exact(dump, truth):
    run = dump['run']
    check(run['mode'] == 'exact' and run['line_size'] == 64, f"run record: {run}")
    n = truth['lines']
    loads = truth['loads'][0]
    functions = sweepers(dump, 'exact_functions')
    check(len(functions) == truth['threads'], f"sweep counted in {len(functions)} threads, not {truth['threads']}")
    for tid, (f, *rest) in functions.items():
        check(not rest, f"thread {tid}: sweep listed {1 + len(rest)} times")
        curve = next(c for c in dump['exact'] if c['tid'] == tid)
        lines = curve['lines']
        check(f['accesses'] == loads, f"thread {tid}: sweep made {f['accesses']} accesses, not {loads}")
        # LRU, C lines: every access of a sweep misses when C < N; only the N first ones otherwise.
        want = [loads if c < n else n for c in lines]
        bad = [(c, got, w) for c, got, w in zip(lines, f['lru_misses'], want) if got != w]
        check(not bad, f"thread {tid}: sweep's LRU misses (lines, got, want) {bad[:4]}")
        # The thread's curve adds the few accesses of its start and end.
        check(loads <= curve['accesses'] <= loads + 100, f"thread {tid}: curve of {curve['accesses']} accesses")
        extra = [m - w for m, w in zip(curve['lru_misses'], want)]
        check(all(0 <= e <= 100 for e in extra), f"thread {tid}: curve minus sweep's misses {extra}")
        for c, m in zip(curve['random_lines'], curve['random_misses']):
            if c >= n:
                check(n <= m <= n + 100, f"thread {tid}: random replacement of {c} lines missed {m} times")
        windows = windows_of(dump, tid)
        check(len(windows) == 1 and windows[0]['accesses'] == curve['accesses'],
              f"thread {tid}: windows {windows}, expected one of {curve['accesses']} accesses")


def check_ended(dump, mode):
    check(dump['run']['mode'] == mode, f"run record: {dump['run']}")
    if mode == 'sampled':
        samples = sum(len(v) for v in sweepers(dump, 'samples').values())
        check(samples > 0, "no samples in sweep")
        check(dump['windows'], "no windows")
    else:
        check(any(sweepers(dump, 'exact_functions').values()), "no exact counts for sweep")


def main():
    what, dump = sys.argv[1], json.load(open(sys.argv[2]))
    if what == 'sampled':
        check_sampled(dump, read_truth(sys.argv[3]), int(sys.argv[4]))
    elif what == 'exact':
        check_exact(dump, read_truth(sys.argv[3]))
    else:
        check_ended(dump, sys.argv[3])
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


main()

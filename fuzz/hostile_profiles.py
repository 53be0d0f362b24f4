#!/usr/bin/env python3
"""Writes crafted profiles that once crashed sprof or made it run without bound
(issue 9 item 5). Usage: hostile_profiles.py OUT_DIR [NAME…]

Each file is byte-exact docs/FORMAT.md (little-endian writer), so the reader
accepts the framing and the hostile value reaches the code behind it. The
integration test tests/integration/analyze_hostile.sh runs every report on
each; the small ones are also in fuzz/corpus/ as seeds.
"""
import os
import struct
import sys


def u8(v): return struct.pack('<B', v)
def u32(v): return struct.pack('<I', v)
def u64(v): return struct.pack('<Q', v)
def f64(v): return struct.pack('<d', v)
def s(text): b = text.encode(); return u32(len(b)) + b


def record(kind, payload): return u32(kind) + u32(len(payload)) + payload


def file_header(minor=0):
    return b'SPROFILE' + u32(0x01020304) + struct.pack('<HH', 1, minor)


def header(events):
    p = s('sprof_lib') + s('perf') + s('/bin/app') + u32(1) + s('app') + s('host') + u32(7) + u64(0)
    p += s('cpu') + u64(1_000_000) + u32(10) + u64(0) + u32(len(events)) + u32(len(events))
    p += b''.join(s(name) + u8(1 if time_like else 0) for name, time_like in events)
    return record(1, p)


def function(fid, name): return record(3, u32(fid) + u32(0xffffffff) + u64(0) + u64(0) + s(name))


def interval(tid, seq, start, end, cells, n_events):
    """cells: (function, samples, time_ns, [(count, coverage_ns, carry)…])"""
    p = [u32(tid) + u32(seq) + u64(start) + u64(end) + u32(len(cells)) + u32(n_events)]
    for fn, samples, time_ns, events in cells:
        p.append(u32(fn) + u64(samples) + u64(time_ns))
        p.extend(struct.pack('<QQd', count, cov, carry) for count, cov, carry in events)
    return record(5, b''.join(p))


def end(samples): return record(6, struct.pack('<i', 0) + u64(samples) + u64(0))


EVENTS = [('task-clock', True), ('page-faults', False)]


def with_seq(seq):
    """Two threads: one well-numbered interval and one with a hostile seq."""
    ev = [(10_000_000, 10_000_000, float('nan')), (3, 10_000_000, float('nan'))]
    return (file_header() + header(EVENTS) + function(0, 'work') +
            interval(1, 0, 0, 10_000_000, [(0, 1, 10_000_000, ev)], 2) +
            interval(2, seq, 0, 10_000_000, [(0, 1, 10_000_000, ev)], 2) + end(2))


def many_events(n):
    """n distinct events in the header, one interval."""
    events = [(f'ev{i}', False) for i in range(n)]
    cell = (0, 1, 1000, [(1, 1000, float('nan'))] * n)
    return file_header() + header(events) + function(0, 'work') + interval(1, 0, 0, 1000, [cell], n) + end(1)


def duplicate_events():
    return file_header() + header([('page-faults', False), ('page-faults', False)]) + end(0)


def unused_functions(n_functions, n_events):
    """Many functions no interval refers to, times many events: once a
    functions × events table of gigabytes in the analyzer."""
    events = [(f'ev{i}', False) for i in range(n_events)]
    out = file_header() + header(events)
    out += b''.join(function(i, f'f{i}') for i in range(n_functions))
    out += interval(1, 0, 0, 1000, [(0, 1, 1000, [(1, 1000, 1.0)] * n_events)], n_events)
    return out + end(1)


def many_parts(n_cells, n_parts):
    """One interval with many cells, then many one-cell parts of it: merging
    must not rescan the interval for every part."""
    ev = [(1, 1000, float('nan'))]
    out = file_header(1) + header([('page-faults', False)])
    out += b''.join(function(i, f'f{i}') for i in range(n_cells))
    out += interval(1, 0, 0, 1000, [(i, 1, 1000, ev) for i in range(n_cells)], 1)
    part = interval(1, 0, 500, 2000, [(n_cells - 1, 1, 1000, ev)], 1)
    return out + part * n_parts + end(n_cells + n_parts)


def two_parts():
    """Minor version 1: an interval of thread 1 in two parts, thread 2's
    interval between them; NaN carries on one side of the merge."""
    ev = lambda n, carry: [(n * 1000, n * 1000, carry), (n, n * 1000, float('nan'))]
    return (file_header(1) + header(EVENTS) + function(0, 'main') + function(1, 'work') +
            interval(1, 0, 0, 6000, [(0, 2, 2000, ev(2, float('nan'))), (1, 4, 4000, ev(4, 3.5))], 2) +
            interval(2, 0, 0, 9000, [(1, 9, 9000, ev(9, float('nan')))], 2) +
            interval(1, 0, 5000, 10000, [(1, 3, 3000, ev(3, 1.5)), (0, 1, 1000, ev(1, 2.0))], 2) +
            interval(1, 1, 10000, 20000, [(1, 10, 10000, ev(10, float('nan')))], 2) + end(29))


def name_not_utf8():
    """Symbol and program names are bytes: a Latin-1 name once made every
    JSON output throw (found by the fuzzer)."""
    ev = [(1000, 1000, float('nan')), (1, 1000, float('nan'))]
    fn = record(3, u32(0) + u32(0xffffffff) + u64(0) + u64(0) + u32(5) + b'caf\xe9\x80')
    return (file_header() + header(EVENTS) + fn + interval(1, 0, 0, 1000, [(0, 1, 1000, ev)], 2) + end(1))


def event_name_ambiguous():
    """An event "page-faults/task" beside task-clock: the default rate
    "page-faults/task-clock*1e6" no longer parses (names match longest first),
    which made every report a usage error (found by the fuzzer)."""
    events = [('task-clock', True), ('page-faults', False), ('page-faults/task', False)]
    ev = [(1000, 1000, float('nan')), (2, 1000, float('nan')), (3, 1000, float('nan'))]
    return (file_header() + header(events) + function(0, 'work') +
            interval(1, 0, 0, 1000, [(0, 1, 1000, ev)], 3) + end(1))


def many_rows(n):
    """n intervals of distinct seq (counting down from 0xffffffff), all alike:
    n time-line rows with nothing to tell them apart, where phase detection
    once took rows² steps."""
    out = file_header() + header([('page-faults', False)]) + function(0, 'work')
    cell = (0, 1, 1000, [(1, 1000, float('nan'))])
    out += b''.join(interval(1, 0xffffffff - i, i, i + 1, [cell], 1) for i in range(n))
    return out + end(0)


def many_samples():
    """An interval of eleven days whose one cell claims 10^12 samples: the
    Gecko export writes samples one by one, so it must stop at its bound."""
    ev = [(10**12, 10**15, float('nan'))]
    out = file_header() + header([('page-faults', False)]) + function(0, 'work')
    return out + interval(1, 0, 0, 10**15, [(0, 10**12, 10**15, ev)], 1) + end(10**12)


def samples_300k():
    """Not hostile, only large: 300,000 samples of 10 ms in 6,000 intervals of
    functions a, b, c at 25:17:8, more than a Gecko export holds."""
    ev = lambda n: [(n, n * 10_000_000, float('nan'))]
    out = file_header() + header([('page-faults', False)])
    out += function(0, 'a') + function(1, 'b') + function(2, 'c')
    cells = [(f, n, n * 10_000_000, ev(n)) for f, n in ((0, 25), (1, 17), (2, 8))]
    out += b''.join(interval(1, i, i * 500_000_000, (i + 1) * 500_000_000, cells, 1) for i in range(6000))
    return out + end(300_000)


def locality_records():
    """Minor version 3: every kind of locality record, a window and a curve in
    two parts, samples with and without reuse (a seed for the fuzzer)."""
    ev = [(1000, 1000, float('nan')), (1, 1000, float('nan'))]
    no_reuse = 0xffffffffffffffff

    def sample(window, distance, trigger_fn, flags):
        trigger = u32(trigger_fn) + u64(0x30) if distance != no_reuse else u32(0xffffffff) + u64(0)
        return u32(1) + u32(window) + u64(distance) + u32(0) + u64(0x10) + trigger + u64(0x7000) + u8(8) + u8(flags)

    def curve(accesses, lru, rand):
        pairs = lambda sizes: u32(len(sizes)) + b''.join(u64(c) + u64(m) for c, m in sizes)
        return record(10, u32(1) + u64(accesses) + pairs(lru) + pairs(rand))

    window = lambda n, accesses, samples, unseen: record(8, u32(1) + u32(n) + u64(accesses) + u64(samples) + u64(unseen))
    run = record(7, s('sampled') + u32(64) + u64(100) + u64(1000) + u64(42))
    samples = record(9, u32(3) + sample(0, 12, 1, 1) + sample(0, no_reuse, 0, 0) + sample(1, 3, 0, 3))
    functions = record(11, u32(1) + u32(1) + u32(0) + u64(90) + u32(2) + u64(50) + u64(10))
    return (file_header(3) + header(EVENTS) + function(0, 'work') + function(1, 'main') +
            interval(1, 0, 0, 1000, [(0, 1, 1000, ev)], 2) + run + window(0, 1000, 2, 8) + samples +
            curve(90, [(16, 60), (32, 12)], [(32, 15)]) + window(0, 24, 1, 0) + window(1, 500, 0, 0) +
            curve(10, [(16, 5), (32, 1)], [(32, 2)]) + functions + end(1))


def locality_detail():
    """Minor version 5: data objects, wide samples (one with a longer entry),
    tenures of every ending, an exact curve with detail sizes and an
    instruction in two parts (a seed for the fuzzer)."""
    no_reuse = 0xffffffffffffffff
    run = record(7, s('sampled') + u32(64) + u64(100) + u64(1000) + u64(42))
    heap = record(16, u32(0) + u8(0) + u32(0xffffffff) + u32(1) + u64(0x40) + s('') + u64(0))
    stack = record(16, u32(1) + u8(2) + u32(0xffffffff) + u32(0xffffffff) + u64(0) + s('[stack]') + u64(0))

    def wide(entry, items):
        body = b''
        for position, distance, data in items:
            trigger = u32(1) + u64(0x30) if distance != no_reuse else u32(0xffffffff) + u64(0)
            one = (u32(1) + u32(0) + u64(distance) + u32(0) + u64(0x10) + trigger + u64(0x7000) + u8(8) + u8(0) +
                   u64(position) + u32(data))
            body += one + b'\0' * (entry - len(one))
        return record(14, u32(len(items)) + u32(entry) + body)

    def tenure(position, end, steps):
        return (u32(1) + u64(position) + u8(end) + u8(len(steps)) +
                b''.join(u64(g) + u32(a) + u64(b) + u64(used) for g, a, b, used in steps))

    tenures = record(15, u32(3) + tenure(5, 0, [(1, 1, 8, 0xff), (no_reuse, 8, 64, (1 << 64) - 1)]) +
                     tenure(9, 1, [(5000, 2, 16, 0xffff)]) + tenure(11, 2, [(no_reuse, 32, 256, 0xff)]))
    curve = record(10, u32(1) + u64(100) + u32(1) + u64(16) + u64(40) + u32(0) + u32(2) + u64(8) + u64(512))
    instruction = lambda accesses, misses: record(17, u32(1) + u32(1) + u32(0) + u64(0x10) + u8(1) + u64(accesses) +
                                                  u32(2) + u64(misses) + u64(64 * misses) + u64(8 * misses) +
                                                  u64(0) + u64(0) + u64(0))
    return (file_header(5) + header(EVENTS) + function(0, 'work') + function(1, 'main') + run + heap + stack +
            wide(62, [(5, 100, 0), (7, no_reuse, 1)]) + wide(70, [(9, 20, 1), (11, 3, 0xffffffff)]) + tenures +
            curve + instruction(60, 30) + instruction(40, 10) + end(1))


def code_locations(strings, locations, addresses):
    """Minor 6 (type 18): strings; locations (function, file, line, [(name, call_file,
    call_line)…]); address rows (function, address, location, column)."""
    p = u32(len(strings)) + b''.join(s(t) for t in strings)
    p += u32(len(locations))
    for fn, file, line, inlined in locations:
        p += u32(fn) + u32(file) + u32(line) + u32(len(inlined))
        p += b''.join(u32(name) + u32(cf) + u32(cl) for name, cf, cl in inlined)
    p += u32(len(addresses)) + b''.join(u32(fn) + u64(a) + u32(loc) + u32(col) for fn, a, loc, col in addresses)
    return record(18, p)


def line_cells(tid, seq, cells, n_events):
    """Type 19, cells: (location, samples, time_ns, [(count, coverage_ns, carry)…])"""
    p = [u32(tid) + u32(seq) + u32(len(cells)) + u32(n_events)]
    for loc, samples, time_ns, events in cells:
        p.append(u32(loc) + u64(samples) + u64(time_ns))
        p.extend(struct.pack('<QQd', count, cov, carry) for count, cov, carry in events)
    return record(19, b''.join(p))


NO_STRING = 0xffffffff


def source_lines():
    """Minor version 6: code locations with an inlined call and an unknown
    line, address rows, and an interval in two parts each with its line
    cells (a seed for the fuzzer)."""
    ev = lambda n, carry: [(n * 1000, n * 1000, carry), (n, n * 1000, float('nan'))]
    locations = code_locations(['/src/app.c', 'square', '/src/sq.h'],
                               [(0, 0, 10, []), (0, 2, 3, [(1, 0, 12)]), (1, NO_STRING, 0, [])],
                               [(0, 0x1010, 0, 4), (0, 0x1020, 1, 0), (1, 0x7f00, 2, 0)])
    return (file_header(6) + header(EVENTS) + function(0, 'work') + function(1, '[unknown]') + locations +
            interval(1, 0, 0, 6000, [(0, 5, 5000, ev(5, 2.0)), (1, 1, 1000, ev(1, float('nan')))], 2) +
            line_cells(1, 0, [(0, 3, 3000, ev(3, 1.5)), (1, 2, 2000, ev(2, 0.5)), (2, 1, 1000, ev(1, float('nan')))], 2) +
            interval(1, 0, 5000, 9000, [(0, 2, 2000, ev(2, 1.0))], 2) +
            line_cells(1, 0, [(1, 2, 2000, ev(2, 1.0))], 2) + end(8))


def many_locations(n, n_events):
    """n locations of a function with a 1 MB name, each in code of its own
    inlined function, with one 100 kB file name, and an address row each,
    with many events; one line cell. Expanding a name into each location,
    hashing the function's name once per location, or making a function of
    each inlined name (a row of event sums each) would cost gigabytes or
    minutes."""
    strings = ['/src/' + 'x' * 100_000] + [f'inl{i}' for i in range(n)]
    locations = [(0, 0, i, [(1 + i, 0, i)]) for i in range(n)]
    addresses = [(0, 0x1000 + i, i, 0) for i in range(n)]
    ev = [(1, 1000, 1.0)] * n_events
    events = [(f'ev{i}', False) for i in range(n_events)]
    return (file_header(6) + header(events) + function(0, 'w' * 1_000_000) + code_locations(strings, locations, addresses) +
            interval(1, 0, 0, 1000, [(0, 1, 1000, ev)], n_events) +
            line_cells(1, 0, [(0, 1, 1000, ev)], n_events) + end(1))


def many_line_parts(n_cells, n_parts):
    """One interval with many line cells, then many one-cell LINE_CELLS
    parts of it: merging must not rescan the interval for every part."""
    ev = [(1, 1000, float('nan'))]
    out = file_header(6) + header([('page-faults', False)]) + function(0, 'work')
    out += code_locations(['/src/a.c'], [(0, 0, i + 1, []) for i in range(n_cells)], [])
    out += interval(1, 0, 0, 1000, [(0, n_cells + n_parts, 1000 * (n_cells + n_parts), ev)], 1)
    out += line_cells(1, 0, [(i, 1, 1000, ev) for i in range(n_cells)], 1)
    return out + line_cells(1, 0, [(n_cells - 1, 1, 1000, ev)], 1) * n_parts + end(n_cells + n_parts)


FILES = {
    'seq-ffffffff.sprof': lambda: with_seq(0xffffffff),
    'seq-7ffffffe.sprof': lambda: with_seq(0x7ffffffe),
    'duplicate-events.sprof': duplicate_events,
    'parts-two.sprof': two_parts,
    'name-not-utf8.sprof': name_not_utf8,
    'event-name-ambiguous.sprof': event_name_ambiguous,
    'events-100k.sprof': lambda: many_events(100_000),
    'unused-functions.sprof': lambda: unused_functions(40_000, 1_000),
    'parts-many.sprof': lambda: many_parts(20_000, 100_000),
    'rows-many.sprof': lambda: many_rows(100_000),
    'samples-many.sprof': many_samples,
    'samples-300k.sprof': samples_300k,
    'locality-records.sprof': locality_records,
    'locality-detail.sprof': locality_detail,
    'source-lines.sprof': source_lines,
    'locations-many.sprof': lambda: many_locations(40_000, 1_000),
    'line-parts-many.sprof': lambda: many_line_parts(20_000, 100_000),
}


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(FILES)
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        with open(os.path.join(out_dir, name), 'wb') as f:
            f.write(FILES[name]())


if __name__ == '__main__':
    main()

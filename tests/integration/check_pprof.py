#!/usr/bin/env python3
"""Reads a `sprof --export pprof` file back with pprof itself (`go tool pprof
-raw`) and compares it with the flat report of the same profile: per
function the samples, the CPU time and every event (an estimate rounded to
a whole number; an unknown one is 0 in pprof). Writes what pprof read as a
CSV in the flat report's columns (function,samples,time_s,EVENT…), for the
checks against a workload's own truth. Exits 77 when there is no `go`.

A profile with source lines has a location per source location, its Line
list innermost first (pprof's order for inlined frames): its function is
the last line's. A function's events are then a sum of rounded estimates,
within half a unit per location of the flat report's. Given LINES.csv
(`sprof --lines --format csv`), the samples and time of each of its rows
must also be those of pprof's locations at that function and line.

usage: check_pprof.py FILE.pb.gz FLAT.csv OUT.csv [LINES.csv]
"""
import csv
import gzip
import re
import shutil
import subprocess
import sys

# A location in no mapping (a PC in no mapped object: the [unknown] bucket
# without an object) has no M=.
LOCATION = re.compile(r"^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*) (\S*):(-?\d+) s=\d+(?:\(.*\))?$")
# A location's further lines (pprof -raw indents them by 13 spaces).
MORE_LINES = re.compile(r"^ {13}(\S.*) (\S*):(-?\d+) s=\d+(?:\(.*\))?$")


def read_raw(path):
    """pprof's own reading: sample types, per location its values and its
    lines (function, file, line), innermost first, and the comments."""
    out = subprocess.run(["go", "tool", "pprof", "-raw", path], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    types = lines[lines.index("Samples:") + 1].split()
    types = [t.split("/")[0] for t in types]
    values, frames, comments = {}, {}, []
    section, last = None, None
    for line in lines:
        if line.startswith("Comment: "):
            comments.append(line[len("Comment: "):])
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section == "Samples:" and ":" in line:
            nums, locs = line.split(":")
            assert len(locs.split()) == 1, f"a sample of more than one location: {line}"
            values[int(locs)] = [int(v) for v in nums.split()]
        elif section == "Locations":
            m = LOCATION.match(line)
            if m:
                last = int(m.group(1))
                frames[last] = [(m.group(2), m.group(3), int(m.group(4)))]
                continue
            m = MORE_LINES.match(line)
            assert m and last is not None, f"pprof's location line not understood: {line!r}"
            frames[last].append((m.group(1), m.group(2), int(m.group(3))))
    return types, {loc: (frames[loc], v) for loc, v in values.items()}, comments


def sum_by(locations, key):
    """Values of the locations added up per key(frames), and how many each."""
    sums, counts = {}, {}
    for frames, v in locations.values():
        k = key(frames)
        sums[k] = [a + b for a, b in zip(sums[k], v)] if k in sums else list(v)
        counts[k] = counts.get(k, 0) + 1
    return sums, counts


def check_lines(locations, lines_csv, errors):
    """Each --lines row against pprof's locations at its function and line
    (the last frame's: --lines shows inlined code at the call's line)."""
    sums, _ = sum_by(locations, lambda fr: (fr[-1][0], fr[-1][1], fr[-1][2]))
    rows = list(csv.DictReader(open(lines_csv)))
    want = {(r["function"], r["file"], int(r["line"] or 0)): r for r in rows}
    # The lines the ticks found must be the same; a line only its own
    # events' records found (no sample, no time: a fault in the sampler's
    # handler) is compared where both have it.
    ticked_pprof = {k for k, v in sums.items() if v[0] or v[1]}
    ticked_lines = {k for k, r in want.items() if int(r["samples"]) or float(r["time_s"])}
    if ticked_pprof != ticked_lines:
        errors.append(f"lines differ: only in pprof {sorted(ticked_pprof - ticked_lines)[:8]}, "
                      f"only in --lines {sorted(ticked_lines - ticked_pprof)[:8]}")
        return 0
    sums = {k: v for k, v in sums.items() if k in want}
    for k, v in sums.items():
        r = want[k]
        if v[0] != int(r["samples"]) or abs(v[1] - float(r["time_s"]) * 1e9) > max(1, 1e-9 * v[1]):
            errors.append(f"{k}: pprof {v[0]} samples {v[1]} ns, --lines {r['samples']} {r['time_s']} s")
    return len(want)


def default_sample_type(path):
    """Profile.default_sample_type (field 14) as stored: speedscope takes it
    for an index into sample_type, pprof for a string index."""
    data, pos, value = gzip.decompress(open(path, "rb").read()), 0, 0

    def varint():
        nonlocal pos
        v, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if b < 0x80:
                return v

    while pos < len(data):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            v = varint()
            if field == 14:
                value = v
        elif wire == 2:
            length = varint()
            pos += length
        else:
            pos += {1: 8, 5: 4}[wire]
    return value


def main():
    if not shutil.which("go"):
        print("skipped: no go (go tool pprof) to read the export back")
        sys.exit(77)
    path, flat_csv, out_csv = sys.argv[1:4]
    types, locations, comments = read_raw(path)
    got, per_function = sum_by(locations, lambda frames: frames[-1][0])
    flat = {r["function"]: r for r in csv.DictReader(open(flat_csv))}
    events = list(flat[next(iter(flat))].keys())[5:]  # function,object,samples,time_s,time_pct, events…, rates…
    events = [e for e in events if e in types]
    assert types == ["samples", "cpu"] + events, f"sample types {types}, not samples, cpu, {events}"
    assert sorted(got) == sorted(flat), f"functions differ: pprof {sorted(got)}, flat {sorted(flat)}"
    assert default_sample_type(path) == types.index("cpu"), "speedscope would not show cpu first"
    errors = []
    for fn, v in got.items():
        row = flat[fn]
        want = [int(row["samples"]), float(row["time_s"]) * 1e9] + \
               [round(float(row[e])) if row[e] != "" else 0 for e in events]
        for k, (name, a, b) in enumerate(zip(types, v, want)):
            rounding = 0.5 * per_function[fn] if k >= 2 else 0  # each location's estimate rounded
            if abs(a - b) > max(1, rounding, 1e-9 * abs(b)):
                errors.append(f"{fn} {name}: pprof {a}, flat report {b}")
    n_lines = check_lines(locations, sys.argv[4], errors) if len(sys.argv) > 4 else 0
    unknown = {e: sum(1 for r in flat.values() if r[e] == "") for e in events}
    for e, n in unknown.items():
        note = f"{e}: unknown for {n} of {len(flat)} functions (never live while they ran), written as 0"
        if (n > 0) != (note in comments):
            errors.append(f"comment on {e}'s unknown estimates: {comments}")
    if errors:
        sys.exit("FAIL pprof vs the flat report: " + "; ".join(errors))
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["function", "samples", "time_s"] + events)
        for fn, v in sorted(got.items(), key=lambda kv: -kv[1][1]):
            w.writerow([fn, v[0], v[1] / 1e9] + v[2:])
    print(f"pprof read {len(got)} functions in {len(locations)} locations, {sum(v[0] for v in got.values())} "
          f"samples, sample types {' '.join(types)}: as the flat report" +
          (f"; {n_lines} source lines as sprof --lines" if n_lines else ""))


if __name__ == "__main__":
    main()

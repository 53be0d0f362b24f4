#!/usr/bin/env python3
"""Reads a `sprof --export pprof` file back with pprof itself (`go tool pprof
-raw`) and compares it with the flat report of the same profile: per
function the samples, the CPU time and every event (an estimate rounded to
a whole number; an unknown one is 0 in pprof). Writes what pprof read as a
CSV in the flat report's columns (function,samples,time_s,EVENT…), for the
checks against a workload's own truth. Exits 77 when there is no `go`.

usage: check_pprof.py FILE.pb.gz FLAT.csv OUT.csv
"""
import csv
import gzip
import re
import shutil
import subprocess
import sys

LOCATION = re.compile(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+ (.*) (\S*):(-?\d+) s=\d+(?:\(.*\))?$")


def read_raw(path):
    """pprof's own reading: sample types, and per location its function and values."""
    out = subprocess.run(["go", "tool", "pprof", "-raw", path], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    types = lines[lines.index("Samples:") + 1].split()
    types = [t.split("/")[0] for t in types]
    values, names, comments = {}, {}, []
    section = None
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
            assert m, f"pprof's location line not understood: {line!r}"
            names[int(m.group(1))] = m.group(2)
    return types, {names[loc]: v for loc, v in values.items()}, comments


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
    types, got, comments = read_raw(path)
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
        for name, a, b in zip(types, v, want):
            if abs(a - b) > max(1, 1e-9 * abs(b)):
                errors.append(f"{fn} {name}: pprof {a}, flat report {b}")
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
    print(f"pprof read {len(got)} functions, {sum(v[0] for v in got.values())} samples, "
          f"sample types {' '.join(types)}: as the flat report")


if __name__ == "__main__":
    main()

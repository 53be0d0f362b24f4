#!/usr/bin/env python3
"""A strict check of a Gecko profile (`sprof --export gecko`) against what the
Firefox Profiler's importer requires, written from its documentation and
types (docs-developer/gecko-profile-format.md, src/types/gecko-profile.ts,
the processing in src/profile-logic/process-profile.ts): every field it
reads, with its type, every index in range, every table's schema exactly.
The Firefox Profiler is no Debian package, so this stands in for it.

On success prints, as JSON, what the profile holds per process: per function
(the name of its frames' "NAME (in OBJECT)") the samples and the CPU time
(threadCPUDelta, ns) of all its threads, the counters' points and the
markers. Exits 1 with every violation found.

usage: check_gecko.py FILE.json > summary.json
"""
import json
import re
import sys

NEWEST_VERSION = 36  # the profiler's GECKO_PROFILE_VERSION when this was written
COLORS = {"transparent", "purple", "green", "orange", "yellow", "lightblue", "grey", "blue", "brown", "magenta", "red",
          "lightgreen", "darkgray"}
TOP_KEYS = {"counters", "profilerOverhead", "meta", "libs", "pages", "sources", "threads", "pausedRanges",
            "processes", "jsTracerDictionary", "profilingLog", "profileGatheringLog"}
THREAD_KEYS = {"name", "eTLD+1", "isPrivateBrowsing", "userContextId", "registerTime", "processType", "processName",
               "unregisterTime", "tid", "pid", "markers", "samples", "frameTable", "stackTable", "stringTable",
               "jsTracerEvents", "tracedValues", "tracedObjectShapes"}
MARKER_SCHEMA = {"name": 0, "startTime": 1, "endTime": 2, "phase": 3, "category": 4, "data": 5}
FRAME_SCHEMA = {"location": 0, "relevantForJS": 1, "innerWindowID": 2, "implementation": 3, "line": 4, "column": 5,
                "category": 6, "subcategory": 7}
STACK_SCHEMA = {"prefix": 0, "frame": 1}
COUNTER_SCHEMA = {"time": 0, "count": 1, "number": 2}
SAMPLE_SCHEMAS = [{"stack": 0, "time": 1, "responsiveness": 2}, {"stack": 0, "time": 1, "eventDelay": 2},
                  {"stack": 0, "time": 1, "eventDelay": 2, "threadCPUDelta": 3}]
# How the importer reads a frame's location (extractFuncsAndResourcesFromFrameLocations):
# "0x…" an address to symbolicate, "NAME (in LIB)" a native function, "NAME (URL:LINE:COL)" JS.
CPP = re.compile(r"^(.*) \(in ([^)]*)\)$")
JS = [re.compile(r"^(.*) \((.+?):([0-9]+)(?::([0-9]+))?\)(?:\[(\d+)\])?$"),
      re.compile(r"^()(.+?):([0-9]+)(?::([0-9]+))?(?:\[(\d+)\])?$")]

errors = []


def fail(where, what):
    errors.append(f"{where}: {what}")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_type(where, v, kind, nullable=False):
    if v is None and nullable:
        return True
    ok = {"num": is_num, "int": is_int, "str": lambda x: isinstance(x, str), "bool": lambda x: isinstance(x, bool),
          "list": lambda x: isinstance(x, list), "dict": lambda x: isinstance(x, dict)}[kind](v)
    if not ok:
        fail(where, f"{v!r} is not {kind}{' or null' if nullable else ''}")
    return ok


def check_index(where, v, size, nullable=False):
    if v is None and nullable:
        return True
    if not is_int(v) or not 0 <= v < size:
        fail(where, f"index {v!r} outside 0..{size - 1}")
        return False
    return True


def check_table(where, table, schema):
    """A {schema, data} table: the exact schema, rows of its width."""
    if not check_type(where, table, "dict"):
        return []
    if set(table) != {"schema", "data"}:
        fail(where, f"keys {sorted(table)}, not schema and data")
    if table.get("schema") != schema:
        fail(where, f"schema {table.get('schema')}, not {schema}")
    rows = table.get("data", [])
    if not check_type(where + ".data", rows, "list"):
        return []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(schema):
            fail(f"{where}.data[{i}]", f"{row!r} is not a row of {len(schema)} values")
            return []
    return rows


def check_meta(where, meta, full):
    if not check_type(where, meta, "dict"):
        return None
    required = {"version": "int", "startTime": "num", "shutdownTime": "num?", "categories": "list",
                "markerSchema": "list"}
    if full:
        required.update({"interval": "num", "stackwalk": "int", "debug": "int", "gcpoison": "int",
                         "asyncstack": "int", "processType": "int"})
    for key, kind in required.items():
        if key not in meta:
            fail(where, f"no {key}")
        else:
            check_type(f"{where}.{key}", meta[key], kind.rstrip("?"), kind.endswith("?"))
    if not (is_int(meta.get("version")) and 1 <= meta["version"] <= NEWEST_VERSION):
        fail(where, f"version {meta.get('version')!r} is not one the profiler imports (1..{NEWEST_VERSION})")
    if full:
        for flag in ("stackwalk", "debug", "gcpoison", "asyncstack"):
            if meta.get(flag) not in (0, 1):
                fail(f"{where}.{flag}", f"{meta.get(flag)!r} is not 0 or 1")
        if not (is_num(meta.get("interval")) and meta["interval"] > 0):
            fail(f"{where}.interval", f"{meta.get('interval')!r} is not a positive number of ms")
        for key in ("product", "platform", "oscpu", "misc", "abi", "toolkit"):
            if key in meta:
                check_type(f"{where}.{key}", meta[key], "str")
        if "presymbolicated" in meta:
            check_type(f"{where}.presymbolicated", meta["presymbolicated"], "bool")
        units = meta.get("sampleUnits")
        if units is not None and (not isinstance(units, dict) or units.get("time") not in ("ms", "bytes") or
                                  units.get("eventDelay") != "ms" or
                                  units.get("threadCPUDelta") not in ("ns", "µs", "variable CPU cycles")):
            fail(f"{where}.sampleUnits", f"{units!r}")
    categories = meta.get("categories") or []
    for i, c in enumerate(categories):
        w = f"{where}.categories[{i}]"
        if not isinstance(c, dict) or set(c) != {"name", "color", "subcategories"}:
            fail(w, f"{c!r} is not {{name, color, subcategories}}")
            continue
        check_type(w + ".name", c["name"], "str")
        if c["color"] not in COLORS:
            fail(w + ".color", f"{c['color']!r} is not a category color")
        if not (isinstance(c["subcategories"], list) and c["subcategories"] and
                all(isinstance(s, str) for s in c["subcategories"])):
            fail(w + ".subcategories", "not a non-empty list of names")
    if not any(isinstance(c, dict) and c.get("color") == "grey" for c in categories):
        fail(where + ".categories", "no grey category (the profiler needs one)")
    return categories


def check_thread(where, t, categories, samples_have_cpu):
    if not check_type(where, t, "dict"):
        return None
    for key in set(t) - THREAD_KEYS:
        fail(where, f"unknown key {key}")
    for key, kind in (("name", "str"), ("registerTime", "num"), ("processType", "str"), ("tid", "int"),
                      ("pid", "int"), ("stringTable", "list")):
        if key not in t:
            fail(where, f"no {key}")
        else:
            check_type(f"{where}.{key}", t[key], kind)
    if "unregisterTime" not in t:
        fail(where, "no unregisterTime")
    else:
        check_type(f"{where}.unregisterTime", t["unregisterTime"], "num", True)
    if "processName" in t:
        check_type(f"{where}.processName", t["processName"], "str")
    strings = t.get("stringTable", [])
    if not all(isinstance(s, str) for s in strings):
        fail(where + ".stringTable", "holds a value that is not a string")

    frames = check_table(where + ".frameTable", t.get("frameTable"), FRAME_SCHEMA)
    names = []
    for i, (loc, js, window, impl, line, col, cat, sub) in enumerate(frames):
        w = f"{where}.frameTable.data[{i}]"
        name = None
        if check_index(w + ".location", loc, len(strings)):
            text = strings[loc]
            m = CPP.match(text)
            if text.startswith("0x"):
                fail(w, f"location {text!r} reads as an address to symbolicate")
            elif not m and any(j.match(text) for j in JS):
                fail(w, f"location {text!r} reads as a JavaScript function")
            name = m.group(1) if m else text
        names.append(name)
        check_type(w + ".relevantForJS", js, "bool")
        check_type(w + ".innerWindowID", window, "int", True)
        check_index(w + ".implementation", impl, len(strings), True)
        check_type(w + ".line", line, "int", True)
        check_type(w + ".column", col, "int", True)
        if check_index(w + ".category", cat, len(categories), True):
            if cat is None:
                if sub is not None:
                    fail(w, "a subcategory without a category")
            else:
                check_index(w + ".subcategory", sub, len(categories[cat]["subcategories"]))

    stacks = check_table(where + ".stackTable", t.get("stackTable"), STACK_SCHEMA)
    stack_frame = []
    for i, (prefix, frame) in enumerate(stacks):
        w = f"{where}.stackTable.data[{i}]"
        check_index(w + ".prefix", prefix, i, True)  # a prefix comes before its stack
        check_index(w + ".frame", frame, len(frames))
        stack_frame.append(frame)

    samples = t.get("samples")
    schema = samples.get("schema") if isinstance(samples, dict) else None
    if schema not in SAMPLE_SCHEMAS:
        fail(where + ".samples", f"schema {schema} is none the profiler reads")
        return None
    if "threadCPUDelta" in schema and not samples_have_cpu:
        fail(where + ".samples", "threadCPUDelta without meta.sampleUnits")
    rows = check_table(where + ".samples", samples, schema)
    functions = {}
    last = None
    for i, row in enumerate(rows):
        w = f"{where}.samples.data[{i}]"
        stack, time = row[0], row[1]
        check_index(w + ".stack", stack, len(stacks), True)
        if check_type(w + ".time", time, "num"):
            if last is not None and time < last:
                fail(w + ".time", f"{time} before the sample before it ({last})")
            last = time
        check_type(w + ".delay", row[2], "num", True)
        cpu = row[3] if len(row) > 3 else None
        if cpu is not None and (not is_num(cpu) or cpu < 0):
            fail(w + ".threadCPUDelta", f"{cpu!r} is not a CPU time")
        if is_int(stack) and stack < len(stacks) and is_int(stack_frame[stack]) and stack_frame[stack] < len(names):
            f = functions.setdefault(names[stack_frame[stack]], {"samples": 0, "cpu_ns": 0.0})
            f["samples"] += 1
            f["cpu_ns"] += cpu or 0

    markers = []
    for i, (name, start, end, phase, cat, data) in enumerate(check_table(where + ".markers", t.get("markers"),
                                                                          MARKER_SCHEMA)):
        w = f"{where}.markers.data[{i}]"
        check_index(w + ".name", name, len(strings))
        check_type(w + ".startTime", start, "num", True)
        check_type(w + ".endTime", end, "num", True)
        if phase not in (0, 1, 2, 3):
            fail(w + ".phase", f"{phase!r} is not a marker phase")
        if phase == 1 and not (is_num(start) and is_num(end) and start <= end):
            fail(w, f"an interval marker from {start!r} to {end!r}")
        check_index(w + ".category", cat, len(categories))
        if data is not None and not (isinstance(data, dict) and isinstance(data.get("type"), str)):
            fail(w + ".data", f"{data!r} is neither null nor a payload with a type")
        if is_int(name) and name < len(strings):
            markers.append([strings[name], start, end])
    return {"name": t.get("name"), "processName": t.get("processName"), "tid": t.get("tid"), "pid": t.get("pid"),
            "functions": functions, "markers": markers}


def check_process(where, p, full, out):
    if not check_type(where, p, "dict"):
        return
    for key in set(p) - TOP_KEYS:
        fail(where, f"unknown key {key}")
    for key in ("meta", "libs", "threads", "pausedRanges", "processes"):
        if key not in p:
            fail(where, f"no {key}")
    meta = p.get("meta", {})
    categories = check_meta(where + ".meta", meta, full) or []
    for key in ("libs", "pausedRanges", "processes", "threads"):
        check_type(f"{where}.{key}", p.get(key, []), "list")
    threads = [check_thread(f"{where}.threads[{i}]", t, categories, isinstance(meta.get("sampleUnits"), dict))
               for i, t in enumerate(p.get("threads", []))]
    threads = [t for t in threads if t]
    main = [t for t in threads if t["name"] == "GeckoMain"]
    summary = {"startTime": meta.get("startTime"), "threads": threads, "counters": {}}
    counters = p.get("counters", [])
    if counters and not main:
        fail(where, "counters but no GeckoMain thread: the profiler drops them")
    for i, c in enumerate(counters):
        w = f"{where}.counters[{i}]"
        if not isinstance(c, dict) or set(c) != {"name", "category", "description", "samples"}:
            fail(w, f"keys {sorted(c) if isinstance(c, dict) else c!r}, not name, category, description, samples")
            continue
        for key in ("name", "category", "description"):
            check_type(f"{w}.{key}", c[key], "str")
        points = check_table(w + ".samples", c["samples"], COUNTER_SCHEMA)
        last = None
        for j, (time, count, number) in enumerate(points):
            if check_type(f"{w}.samples.data[{j}].time", time, "num"):
                if last is not None and time < last:
                    fail(f"{w}.samples.data[{j}].time", f"{time} before {last}")
                last = time
            check_type(f"{w}.samples.data[{j}].count", count, "num")
            check_type(f"{w}.samples.data[{j}].number", number, "num")
        summary["counters"][c["name"]] = [[t, n] for t, n, _ in points]
    if len(main) > 1:
        fail(where, f"{len(main)} GeckoMain threads in one process")
    out.append(summary)
    for i, sub in enumerate(p.get("processes", [])):
        check_process(f"{where}.processes[{i}]", sub, False, out)
        if sub.get("processes"):
            fail(f"{where}.processes[{i}]", "a subprocess holds processes of its own")


def main():
    doc = json.load(open(sys.argv[1]))
    processes = []
    check_process("profile", doc, True, processes)
    if errors:
        print(f"{sys.argv[1]}: {len(errors)} violations of the Gecko profile format:", file=sys.stderr)
        for e in errors[:50]:
            print("  " + e, file=sys.stderr)
        sys.exit(1)
    json.dump({"processes": processes}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()

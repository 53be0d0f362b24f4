#!/usr/bin/env python3
"""The figures README.md quotes from the benchmarks, taken from the committed
fragments bench/results/NAME.md by the rules below (what each fragment
exports), so the README can never say what the results do not.

README.md marks each figure: <!-- bench:NAME:KEY -->value<!-- /bench -->.
`bench/run --assemble` (after writing RESULTS.md from the same fragments)
fills every marker; `figures.py --check README.md` (a test in make check)
fails, one line per figure, where README and the fragments disagree.

usage: figures.py --fill README.md | --check README.md | --list
"""
import re
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
MARKER = re.compile(r"<!-- bench:([a-z-]+):([a-z0-9_]+) -->(.*?)<!-- /bench -->", re.S)


class FigureError(Exception):
    pass


def table_after(text, heading):
    """The first Markdown table from the line that starts with `heading` (a
    heading, or the table's own first line): a list of {column: cell}."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith(heading)), None)
    if start is None:
        raise FigureError(f"no heading '{heading}'")
    rows, header = [], None
    for line in lines[start + (0 if heading.startswith("|") else 1):]:
        if not line.startswith("|"):
            if header:
                break
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]  # "\|" is a cell's own
        if header is None:  # a name given twice: the second is "NAME#2"
            header = [c if c not in cells[:i] else f"{c}#{cells[:i].count(c) + 1}" for i, c in enumerate(cells)]
        elif not set(line) <= set("|-: "):
            rows.append(dict(zip(header, cells)))
    if not rows:
        raise FigureError(f"no table after '{heading}'")
    return rows


def cell(heading, where, column):
    """The value of `column` (its text before a bracket) in the one row of
    the table after `heading` whose cells equal `where`."""
    def get(text):
        rows = [r for r in table_after(text, heading) if all(r.get(k) == v for k, v in where.items())]
        if len(rows) != 1:
            raise FigureError(f"{len(rows)} rows with {where} after '{heading}'")
        return rows[0][column].split(" (")[0].strip("*")
    return get


def spread(heading, where, column):
    """The largest magnitude in a cell's bracket "(-0.94 … +0.95)", as ±0.95 %."""
    def get(text):
        rows = [r for r in table_after(text, heading) if all(r.get(k) == v for k, v in where.items())]
        if len(rows) != 1:
            raise FigureError(f"{len(rows)} rows with {where} after '{heading}'")
        ends = re.findall(r"[-+]?\d+\.\d+", rows[0][column].split("(")[1])
        return f"±{max(abs(float(e)) for e in ends):.2f} %"
    return get


def worst(heading, where, column):
    """The largest "max N" of a column over the rows that match `where`."""
    def get(text):
        maxima = [float(re.search(r"max ([\d.]+)", r[column]).group(1))
                  for r in table_after(text, heading) if all(r.get(k) == v for k, v in where.items())]
        if not maxima:
            raise FigureError(f"no rows with {where} after '{heading}'")
        return f"{max(maxima):.2f}"
    return get


def extreme(heading, column, pick=max, skip=("**overall**",), digits=4, part=0):
    """The largest (or, pick=min, smallest) leading number of a column (of
    its `part`-th figure, in cells "A / B / C"), over the rows but those whose
    first cell starts with one of `skip`."""
    def get(text):
        numbers = [float(re.match(r"[\d,.]+", r[column].split(" / ")[part]).group(0).replace(",", ""))
                   for r in table_after(text, heading) if not next(iter(r.values())).startswith(skip)]
        if not numbers:
            raise FigureError(f"no column '{column}' after '{heading}'")
        got = pick(numbers)
        return f"{got:,.0f}" if got >= 100 else f"{got:.{digits}f}"
    return get


def rows_extreme(heading, firsts, columns):
    """The largest leading number of `columns` over the rows whose first cell is one of `firsts`."""
    def get(text):
        rows = [r for r in table_after(text, heading) if next(iter(r.values())) in firsts]
        if len(rows) != len(firsts):
            raise FigureError(f"rows {firsts} not all after '{heading}'")
        worst = max(float(re.match(r"[\d.]+", r[c]).group(0)) for r in rows for c in columns)
        return f"{worst:.4f}"
    return get


def spans(*rules):
    """The smallest and largest of the values of `rules` (numbers followed by a
    unit), as "A–B UNIT"."""
    def get(text):
        values = [rule(text) for rule in rules]
        numbers = [float(re.match(r"[\d.]+", v).group(0)) for v in values]
        unit = re.sub(r"^[\d.]+", "", values[0]).strip()
        return f"{min(numbers):.0f}–{max(numbers):.0f}{unit}"
    return get


def match(pattern):
    """Group 1 of the one match of `pattern` in the fragment."""
    def get(text):
        found = re.findall(pattern, text)
        if len(found) != 1:
            raise FigureError(f"{len(found)} matches of {pattern!r}")
        return found[0]
    return get


def within(heading, rule):
    """`rule` applied to the part of the fragment from `heading` to the next heading."""
    def get(text):
        start = text.find(heading)
        if start < 0:
            raise FigureError(f"no heading '{heading}'")
        end = text.find("\n#", start + 1)
        return rule(text[start:end if end > 0 else len(text)])
    return get


def stamp():
    """When and on which source the fragment was measured."""
    return match(r"^\*Measured (\d{4}-\d\d-\d\d) ")


CPU_BOUND = "### CPU-bound"
LIB_10MS = {"profiler": "sprof_lib", "interval": "10 ms"}
LONG_CALLS = "### Calls at least 5×"
ALL_VARIANTS = "### All variants"
LIVE, MULTIPLEXED = "every event live (4 slots)", "4 events multiplexed on 1–2 slots"


def worst_faults(collector, slots):
    """The accuracy target line's worst fault rate error, calls ≥ 5× the interval, with every
    event live (slots "every event live (4 slots)") or multiplexed ("4 events multiplexed on 1–2 slots")."""
    return match(rf"{collector}, coverage estimator, calls ≥ 5× interval, {re.escape(slots)}: "
                 r"worst time share error [\d.]+ pp \(target ≤ 1\): \**[a-z]+\**; worst fault rate error ([\d.]+ %)")


def multiplexed(collector, estimator):
    """The median fault rate error of `estimator` (coverage or carry-forward), 4 events on 1–2 slots."""
    figures = re.compile(r"coverage ([\d.]+ %) vs carry-forward ([\d.]+ %)")
    line = match(rf"\* ({collector}, multiplexed [^\n]*)")
    return lambda text: figures.search(line(text)).group(1 if estimator == "coverage" else 2)


LIBC, PYTHON = "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/python3.11"


def symbols(obj, column):
    """A cell of the symbols table: one object's cost."""
    return cell("| object", {"object": obj}, column)


def overhead_rows():
    rules = {"date": stamp(), "noise": spread(CPU_BOUND, {"profiler": "unprofiled again (noise floor)"}, "CPU, all")}
    for key, profiler in (("lib", "sprof_lib"), ("pt", "sprof_pt"), ("perf", "perf record -e cpu-clock")):
        for interval in ("10 ms", "1 ms"):
            rules[f"{key}_{interval.split()[0]}ms"] = cell(CPU_BOUND, {"profiler": profiler, "interval": interval},
                                                           "CPU, all")
    rules["lib_per_run"] = within(CPU_BOUND, match(r"\* sprof_lib: \+[\d.]+ % per 100 samples [^)]*\) and "
                                                   r"(\+[\d.]+ %) independent"))
    rules["lib_per_sample"] = within(CPU_BOUND, match(r"\* sprof_lib: (\+[\d.]+ %) per 100 samples"))
    rules["lib_target"] = match(r"CPU-bound: sprof_lib at 10 ms \+[\d.]+ % — target ≤ 0\.5 %: \**([a-z ]+)")
    rules["pt_target"] = match(r"CPU-bound: sprof_pt at 10 ms \+[\d.]+ % — target ≤ 1\.0 %: \**([a-z ]+)")
    return rules


def locality_overhead_rows():
    rules = {}
    for name in ("sweep", "matmul", "bzip2", "sqlite3"):
        heading = f"**{name}**"
        rules[f"{name}_default"] = cell(heading, {"build and run": "instrumented, sprof_lib --locality (1 in 10^5, the default)"},
                                        "CPU time / plain")
        rules[f"{name}_alone"] = cell(heading, {"build and run": "instrumented, on its own (the fast path alone)"},
                                      "CPU time / plain")
        rules[f"{name}_exact"] = cell(heading, {"build and run": "instrumented, sprof_lib --locality=exact (smaller input)"},
                                      "CPU time / plain")
    rules["exact"] = spans(*(rules[f"{name}_exact"] for name in ("sweep", "matmul", "bzip2", "sqlite3")))
    rules["sqlite3_1e4"] = cell("**sqlite3**", {"build and run": "instrumented, sprof_lib --locality=10000"},
                                "CPU time / plain")
    return rules


# What each fragment exports: KEY → rule.
FIGURES = {
    "overhead": overhead_rows(),
    "accuracy": {
        "date": stamp(),
        "share_pair": worst(LONG_CALLS, {"estimator": "coverage"}, "share of heavy + light"),
        "lib_faults_live": worst_faults("sprof_lib", LIVE),
        "pt_faults_live": worst_faults("sprof_pt", LIVE),
        "lib_faults_mux": worst_faults("sprof_lib", MULTIPLEXED),
        "pt_faults_mux": worst_faults("sprof_pt", MULTIPLEXED),
        "lib_mux_coverage": multiplexed("sprof_lib", "coverage"),
        "lib_mux_carry": multiplexed("sprof_lib", "carry-forward"),
        "pt_mux_coverage": multiplexed("sprof_pt", "coverage"),
        "pt_mux_carry": multiplexed("sprof_pt", "carry-forward"),
    },
    "event-corpus": {
        "within_others": spans(*(cell(ALL_VARIANTS, {"pattern": p}, "within target")
                                 for p in ("entry", "middle", "even", "never", "burst"))),
        "within_exit": cell(ALL_VARIANTS, {"pattern": "exit"}, "within target"),
        "programs": match(r"(?m)^(\d+) programs, sampled every"),
    },
    "peers": {
        "samples": match(r"~(\d+) samples per profiler"),
        "perf_named": match(r"perf record vs sprof_lib among these functions: \*\*[\d.]+ pp\*\* \(`[^`]*`\); "
                            r"among the named ones: \*\*([\d.]+ pp)\*\*"),
        "lib_pt_named": match(r"sprof_lib vs sprof_pt among these functions: \*\*[\d.]+ pp\*\* \(`[^`]*`\); "
                              r"among the named ones: \*\*([\d.]+ pp)\*\*"),
    },
    "analyzer-speed": {
        "flat": cell("| analyzer", {"analyzer (1 h profile, 29 MB)": "flat report"}, "time (s)"),
        "phases": cell("| analyzer", {"analyzer (1 h profile, 29 MB)": "phases (auto)"}, "time (s)"),
    },
    "symbols": {
        "libc_functions": symbols(LIBC, "read functions"),
        "python_functions": symbols(PYTHON, "read functions"),
        "libc_debug_open": symbols(LIBC, "open debug info"),
        "libc_debug_memory": symbols(LIBC, "memory held"),
        "libc_per_address": symbols(LIBC, "per address"),
        "libc_addresses": symbols(LIBC, "addresses sampled"),
        "libc_lines": symbols(LIBC, "find their lines"),
        "python_debug_open": symbols(PYTHON, "open debug info"),
    },
    "merge-scale": {
        "size": cell("| ranks", {"ranks": "1024"}, "files on disk"),
        "time": cell("| ranks", {"ranks": "1024"}, "--imbalance: time"),
        "memory": cell("| ranks", {"ranks": "1024"}, "memory"),
    },
    "locality-overhead": locality_overhead_rows(),
    "pmu-overhead": {
        "ratio": cell("| path", {"path (sprof_lib, 1 ms ticks, arm64 guest under QEMU TCG)":
                                 "hardware: cycles, instructions (armv8_pmuv3)"},
                      "CPU time a sample adds, relative to the software path"),
    },
    "locality-accuracy": {
        "lru_1e3": extreme("| workload", "LRU"),
        "random_1e3": extreme("| workload", "random"),
        "samples_1e3": extreme("| workload", "1 in 10^3: samples", pick=min),
        "lru_1e4": extreme("| workload", "LRU#2"),
        "random_1e4": extreme("| workload", "random#2"),
        "samples_1e4_min": extreme("| workload", "1 in 10^4: samples", pick=min),
        "samples_1e4_max": extreme("| workload", "1 in 10^4: samples"),
        "model_time_1e3": extreme("| workload", "LRU model, all sizes with band: 10^3 / 10^4 / 10^5", digits=2),
        "model_time_1e4": extreme("| workload", "LRU model, all sizes with band: 10^3 / 10^4 / 10^5", digits=2, part=1),
        "real_programs": rows_extreme("| workload", ("bzip2", "sqlite3"),
                                      [f"{p}{n}" for p in ("LRU", "random") for n in ("", "#2", "#3")]),
        "samples_most": extreme("| workload", "1 in 10^3: samples"),
    },
}


def value(name, key, texts):
    if name not in FIGURES or key not in FIGURES[name]:
        raise FigureError(f"bench/results/{name}.md exports no '{key}' (see bench/figures.py)")
    if name not in texts:
        path = RESULTS / f"{name}.md"
        if not path.exists():
            raise FigureError(f"{path} is missing")
        texts[name] = path.read_text()
    try:
        return FIGURES[name][key](texts[name])
    except FigureError as e:
        raise FigureError(f"bench/results/{name}.md, {key}: {e}") from None


def filled(readme):
    texts, errors = {}, []

    def fill(m):
        try:
            return f"<!-- bench:{m.group(1)}:{m.group(2)} -->{value(m.group(1), m.group(2), texts)}<!-- /bench -->"
        except FigureError as e:
            errors.append(str(e))
            return m.group(0)
    text = MARKER.sub(fill, readme)
    return text, errors


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        texts = {}
        for name, rules in FIGURES.items():
            for key in rules:
                print(f"{name}:{key} = {value(name, key, texts)}")
        return 0
    if len(argv) != 3 or argv[1] not in ("--fill", "--check"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    path = Path(argv[2])
    readme = path.read_text()
    text, errors = filled(readme)
    for e in errors:
        print(f"figures.py: {e}", file=sys.stderr)
    if errors:
        return 1
    if argv[1] == "--fill":
        if text != readme:
            path.write_text(text)
            print(f"figures.py: filled {path}", file=sys.stderr)
        return 0
    stale = [(a.group(1, 2), a.group(3), b.group(3))
             for a, b in zip(MARKER.finditer(readme), MARKER.finditer(text)) if a.group(3) != b.group(3)]
    for (name, key), said, measured in stale:
        print(f"figures.py: {path} says {said!r} for {name}:{key}, bench/results/{name}.md {measured!r} "
              f"(bench/run --assemble fills it)", file=sys.stderr)
    count = len(MARKER.findall(readme))
    if not stale:
        print(f"figures.py: the {count} figures of {path} are the benchmarks'")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""The analyzer's layers, checked on its sources: every include of an
analyzer header points at the file's own layer or one the layer may see,
the libraries that belong to one layer are included there alone, no two
files include each other (a file and its header counted as one, through
any chain of includes), and no source but main.cpp sits at the top of
sprof-analyze/.

  cli → top, export → report → timeline, locality → model

(docs/ARCHITECTURE.md). Usage: analyze_layers.py [SOURCE_DIR]; exit 1 with
one line per violation."""
import re
import sys
from pathlib import Path

# Each layer and the layers below it that it may include.
SEES = {
    "model": set(),
    "timeline": {"model"},
    "locality": {"model"},
    "report": {"timeline", "locality", "model"},
    "export": {"report", "timeline", "locality", "model"},
    "top": {"report", "timeline", "locality", "model"},
    "cli": {"top", "export", "report", "timeline", "locality", "model"},
}
# Outside libraries that belong to one layer: the include that names one.
OWNED = [
    (re.compile(r"^(n?curses|ncursesw/)"), "top"),
    (re.compile(r"^(google/protobuf/|zlib\.h$|profile\.pb\.h$)"), "export"),
    (re.compile(r"^CLI/"), "cli"),
]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SOURCE = {".cpp", ".hpp", ".h", ".inc"}


def check(root: Path) -> list[str]:
    analyze = root / "sprof-analyze"
    problems = []
    for f in sorted(analyze.iterdir()):
        if f.is_file() and f.suffix in SOURCE and f.name != "main.cpp":
            problems.append(f"{f.relative_to(root)}: a source at the top of sprof-analyze (only main.cpp "
                            "stands there: move it into its layer's folder)")
        elif f.is_dir() and f.name not in SEES:
            problems.append(f"{f.relative_to(root)}: a folder that is no layer ({', '.join(SEES)})")

    sources = [f for f in analyze.glob("*/**/*") if f.suffix in SOURCE and f.parts[len(analyze.parts)] in SEES]
    layer_of = {}  # a header's name → its layer (headers are included by name alone)
    for f in sources:
        if f.suffix != ".cpp":
            if f.name in layer_of:
                problems.append(f"{f.relative_to(root)}: a second header of this name (its includes would be ambiguous)")
            layer_of[f.name] = f.parts[len(analyze.parts)]

    includes = {}  # a file's stem → the stems of the analyzer headers it includes

    def arrows(f: Path, layer: str) -> None:
        for kind, name in INCLUDE.findall(f.read_text(errors="replace")):
            if kind == '"' and name in layer_of and Path(name).stem != f.stem:
                includes.setdefault(f.stem, set()).add(Path(name).stem)
            for pattern, owner in OWNED:
                if pattern.search(name) and layer != owner:
                    problems.append(f"{f.relative_to(root)}: includes {name}, which only {owner}/ may use")
            target = layer_of.get(name) if kind == '"' else None
            if target and target != layer and target not in SEES[layer]:
                problems.append(f"{f.relative_to(root)}: includes {name} of {target}/, a layer {layer}/ may "
                                f"not see (it sees {', '.join(sorted(SEES[layer])) or 'nothing of the analyzer'})")

    for f in sources:
        arrows(f, f.parts[len(analyze.parts)])
    for circle in circles(includes):
        problems.append(f"sprof-analyze: {' → '.join(circle)} include each other (a circle of files)")
    return problems


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(arrows.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(arrows):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    if not (root / "sprof-analyze" / "main.cpp").is_file():
        print(f"analyze_layers: {root}/sprof-analyze/main.cpp not found: give the source directory", file=sys.stderr)
        return 2
    problems = check(root)
    for p in problems:
        print(p)
    layers = {f.parts[-2] for f in (root / "sprof-analyze").glob("*/*.cpp")}
    print(f"analyze_layers: {len(problems)} violation(s) in {len(layers)} layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

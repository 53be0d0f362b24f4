#!/usr/bin/env bash
# Names that fit: a C++ program whose hot code is std::map and
# std::unordered_map lookups, made by a class template of its own
# (workloads/locality/names/catalogue.cpp, built with sprof-c++). Text tables
# collapse its names (Catalogue<…>::total(…) const), keep their columns in
# line, and print each name once (--misses --by function); --names full
# prints the CSV's names, last; --user-frames moves the misses of the
# inlined map lookup from stl_tree.h to the user's line (its marker comment)
# and names what it cannot move.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock task-clock)

cp -r "$HERE/../workloads/locality/names" .
"$BIN/sprof-c++" -O2 -g -o catalogue names/catalogue.cpp
"$BIN/sprof_lib" -e "$events" --locality=1000 --locality-seed 5 -o run.sprof ./catalogue 50000 400000 > /dev/null
lookup=$(grep -n '/\* user: lookup \*/' names/catalogue.cpp | cut -d: -f1)

for by in function line; do
    "$BIN/sprof" --misses --by $by --cache 32K run.sprof > misses.$by.txt
    "$BIN/sprof" --misses --by $by --cache 32K --names full run.sprof > misses.$by.full.txt
    "$BIN/sprof" --misses --by $by --cache 32K --format csv run.sprof > misses.$by.csv
done
"$BIN/sprof" --misses --by line --cache 32K --user-frames run.sprof > misses.user.txt
"$BIN/sprof" --misses --by line --cache 32K --user-frames --format csv run.sprof > misses.user.csv
"$BIN/sprof" run.sprof > flat.txt
"$BIN/sprof" --format csv run.sprof > flat.csv
"$BIN/sprof" --names full run.sprof > flat.full.txt

/usr/bin/python3 - "$lookup" <<'PY' || fail "the names in the tables (see $SCRATCH)"
import csv, re, sys
lookup = int(sys.argv[1])

def table(path, first):
    """The table of a text report: its header (the line starting with `first`) and rows."""
    lines = open(path, encoding="utf-8").read().splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith(first))
    return lines[at], [l for l in lines[at + 1:] if l.strip()]

def in_line(path, first):
    """Header and rows of a table whose last column is a number (right-aligned):
    its columns are in line when every row is as long as the header."""
    head, lines = table(path, first)
    widths = {len(l) for l in lines}
    assert widths == {len(head)}, f"{path}: rows of {sorted(widths)} characters, the header {len(head)}"
    return head, lines

rows = lambda path: list(csv.DictReader(open(path, encoding="utf-8")))
name_of = lambda line: line.split("  ")[0]

# --misses --by function: each location (the function) once, short, in line.
head, lines = in_line("misses.function.txt", "location ")
assert "function" not in head.split(), head
full = rows("misses.function.csv")
assert "function" not in full[0], "--by function repeats the location as a function column"
names = [r["location"] for r in full]
total_map = next(n for n in names if n.startswith("Catalogue<long, std::map<long, Record,") and "::total(" in n)
# The two instances of Catalogue<…>::total(…) const (and of fill) told apart
# by one level more; every other name collapsed whole, none over 60 characters.
totals = [f"Catalogue<long, std::{kind}<…> >::{method}" for kind in ("map", "unordered_map")
          for method in ("total(std::vector<…> const&) const", "fill(std::vector<…> const&)")]
shown = list(map(name_of, lines))
assert all(t in shown for t in totals[::2]), shown  # total, total (fill may have no misses)
for name in shown:
    assert len(name) <= 60 or name in totals, f"a name of {len(name)} characters in the text table: {name}"
    assert name in totals or not re.search(r"<[^…]", name.replace("operator<", "")), f"a template argument in {name}"
print(f"--by function: {len(lines)} rows of {len(head)} characters, the longest CSV name "
      f"{max(map(len, names))}: {total_map}")

# --names full: the same rows, each name whole and last: the CSV's.
head, lines = table("misses.function.full.txt", "accesses_pct")
assert head.rstrip().endswith("location"), head
start = head.index("location")
assert [l[start:] for l in lines] == names, "--names full does not print the CSV's names"
assert all(l[start - 2:start] == "  " for l in lines), "a column before the names is out of line"

# The flat report: the function column short and in line; --names full: the CSV's.
head, lines = in_line("flat.txt", "function ")
flat = rows("flat.csv")
# Both instances of total() are told apart when both were sampled; a run whose
# ticks missed the faster one shows the other collapsed whole (nothing to tell
# it from), so which form is right depends on the CSV, not on this run's luck.
sampled_totals = [r["function"] for r in flat if r["function"].startswith("Catalogue<") and "::total(" in r["function"]]
assert sampled_totals, "the flat CSV lacks Catalogue<…>::total"
expected = totals[::2] if len(sampled_totals) == 2 else ["Catalogue<…>::total(…) const"]
assert all(t in map(name_of, lines) for t in expected), (sampled_totals, lines[:5])
assert all(len(name_of(l)) <= 60 or name_of(l) in totals for l in lines)
assert total_map in [r["function"] for r in flat] or len(sampled_totals) == 1, "the flat CSV lacks the full name"
head, lines = table("flat.full.txt", "object")
start = head.index("function")
assert sorted(l[start:] for l in lines) == sorted(r["function"] for r in flat), "--names full: not the CSV's names"
print(f"flat: {len(lines)} functions, short and in line; --names full = the CSV's names")

# --user-frames: the misses of the library code inlined into fill() and
# total() (std::map and unordered_map lookups and inserts, on stl_tree.h and
# hashtable.h lines) are those functions' own lines', summed they are what
# --by function counts for them (the instructions in each function's own
# symbol, frames aside); the lookup's line gets those of find(). What stays
# in library code is the out-of-line library functions', as the note says.
source = open("names/catalogue.cpp").read().splitlines()
def span(signature):
    first = next(i for i, l in enumerate(source) if signature in l) + 1
    return range(first, next(i for i in range(first, len(source)) if source[i] == "    }") + 2)
plain, user = rows("misses.line.csv"), rows("misses.user.csv")
misses = lambda rs, where: sum(float(r["misses"]) for r in rs if where(r))
line_of = lambda r: int(r["location"].rpartition(":")[2]) if r["location"].rpartition("/")[2].startswith("catalogue.cpp:") else None
all_plain, all_user = misses(plain, lambda r: True), misses(user, lambda r: True)
assert abs(all_plain - all_user) <= 1e-9 * all_plain, (all_plain, all_user)
for name in ("fill", "total"):
    lines = span(f" {name}(const std::vector<Key>&")
    truth = misses(full, lambda r: re.match(rf"Catalogue<long, std::(unordered_)?map<.*>::{name}\(", r["location"]))
    before = misses(plain, lambda r: line_of(r) in lines)
    after = misses(user, lambda r: line_of(r) in lines)
    print(f"{name}() at lines {lines.start}-{lines.stop - 1}: {before:.0f} misses on its own lines, "
          f"{after:.0f} with --user-frames; --by function: {truth:.0f}")
    assert abs(after - truth) <= 1e-6 * all_plain + 2, (name, after, truth)
    assert after > 2 * before, (name, before, after)
at_lookup = misses(user, lambda r: line_of(r) == lookup)
assert misses(plain, lambda r: line_of(r) == lookup) == 0 and at_lookup > 0.5 * all_user, at_lookup
print(f"the lookup's line {lookup}: {at_lookup:.0f} misses of {all_user:.0f} with --user-frames, none without")
# What stays in library code: the library functions called out of line.
library = misses(full, lambda r: r["location"].startswith("std::"))
note = re.search(r"user frames: (\d+) misses", open("misses.user.txt").read())
assert note and abs(float(note[1]) - library) <= 2 + len(full), (note and note[1], library)
left_in = [r for r in user if "/usr/include/" in r["location"] and not r["function"].startswith("std::")]
assert not left_in, f"library lines left in the user's functions: {left_in[:3]}"
print(f"left in library code: {library:.0f} misses of out-of-line std:: functions, as the note says")
# Collapsed names never make two functions alike.
head, lines = table("misses.function.txt", "location ")
assert len(set(map(name_of, lines))) == len(set(names)), [name_of(l) for l in lines]
PY
pass "C++ names collapsed and in line, --names full = the CSV's, --user-frames on the user's line $lookup"
grep -q "user frames: .* in library code not inlined" misses.user.txt || fail "--user-frames names nothing it left: $(head -12 misses.user.txt)"
pass "$(grep -o 'user frames: .*' misses.user.txt)"

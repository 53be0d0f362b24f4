#!/usr/bin/env bash
# sprof --html on a C++ program (workloads/locality/names/catalogue.cpp: its
# misses on libstdc++'s header lines, two headers named table.h), in headless
# Chromium: every source file opens at its hottest line (as --misses counts
# it), not at line 1 (a header's licence text); the sidebar names each file
# by the shortest tail of its path no other file's ends with (left/table.h,
# right/table.h); every chart's axes have titles.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock task-clock)
[ -x /usr/bin/python3 ] || { echo "skipped: no /usr/bin/python3"; exit 77; }

cp -r "$HERE/../workloads/locality/names" .
"$BIN/sprof-c++" -O2 -g -o catalogue names/catalogue.cpp
"$BIN/sprof_lib" -e "$events" --locality=1000 --locality-seed 5 -o run.sprof ./catalogue 50000 400000 > /dev/null
"$BIN/sprof" --html site run.sprof > /dev/null 2> html.err || fail "sprof --html: $(cat html.err)"
"$BIN/sprof" --misses --format json run.sprof > misses.json

# What the page shows: for each file of the sidebar (opened by its link) the
# lines in view; the sidebar's names; the axis titles of the miss-ratio
# chart and of a reuse pair's histogram.
visible='(() => { const v = document.getElementById("view").getBoundingClientRect();
  const rows = [...document.querySelectorAll("#source tr.line")].filter((tr) => {
    const b = tr.getBoundingClientRect(); return b.top >= v.top && b.bottom <= v.bottom; });
  return rows.length ? [Number(rows[0].id.slice(1)), Number(rows[rows.length - 1].id.slice(1))] : null; })()'
files='[...document.querySelectorAll("nav a[id^=\"file-\"]")].map((a) => ({path: a.id.slice(5), shown: a.lastChild.textContent, title: a.title}))'
opened="(() => { const out = {}; for (const a of document.querySelectorAll('nav a[id^=\"file-\"]')) { a.click(); out[a.id.slice(5)] = $visible; } return out; })()"
titles='(svg) => [...document.querySelectorAll(svg + " .axis-title")].map((t) => t.textContent)'
browser() { /usr/bin/python3 "$HERE/html_browser.py" "$@"; }
artifacts=$BUILD/test-artifacts
mkdir -p "$artifacts" 2> /dev/null && [ -w "$artifacts" ] || artifacts=$SCRATCH
browser site/index.html "$artifacts/loc_html_cpp.png" \
    "js:document.querySelector('#view h2').textContent" "js:$visible" "js:$files" "js:$opened" \
    "#nav-mrc" "js:($titles)('svg#mrc')" "#nav-pairs" "#view table.grid tbody tr" "js:($titles)('svg.histogram')" \
    > browser.json || fail "the browser run: $(cat browser.json)"

/usr/bin/python3 - browser.json misses.json <<'PY' || fail "what the page showed: $(cat browser.json)"
import json, sys
page, misses = (json.load(open(p)) for p in sys.argv[1:3])
assert page["errors"] == [], f"console errors: {page['errors']}"
first_file, first_view, files, opened, mrc_titles, histogram_titles = page["values"]

# The hottest line of each file, from sprof --misses (rows: most misses first).
hottest = {}
for r in misses["locations"]:
    file, _, line = r["location"].rpartition(":")
    if line.isdigit() and file not in hottest:
        hottest[file] = int(line)

def in_view(file, view):
    hot = hottest[file]
    assert view and view[0] <= hot <= view[1], f"{file}: lines {view} in view, its hottest line is {hot}"
    if hot > view[1] - view[0] + 1:
        assert view[0] > 1, f"{file} opened at line 1, its hottest line is {hot}"

in_view(first_file, first_view)
print(f"opens {first_file} at lines {first_view}, its hottest line {hottest[first_file]}")
paths = [f["path"] for f in files]
far = [p for p in paths if hottest.get(p, 0) > 60]
assert far, f"no file whose hottest line is below the first screen: {hottest}"
for p in paths:
    if p in hottest:
        in_view(p, opened[p])
print(f"{len(paths)} files each opened at its hottest line ({len(far)} of them below line 60)")

# Unique tails: a suffix of whole components, no other path ends with it,
# and none shorter would do.
for f in files:
    p, shown = f["path"], f["shown"]
    assert f["title"] == p and (p == shown or p.endswith("/" + shown)), f
    clash = lambda tail: any(q != p and (q == tail or q.endswith("/" + tail)) for q in paths)
    assert not clash(shown), f"{shown} does not tell {p} apart"
    shorter = shown.split("/", 1)[1] if "/" in shown else None
    assert shorter is None or clash(shorter), f"{p}: {shorter} would do, the sidebar shows {shown}"
shown = sorted(f["shown"] for f in files)
assert "left/table.h" in shown and "right/table.h" in shown, shown
print("sidebar:", ", ".join(shown))

assert mrc_titles == ["cache size (bytes, log scale)", "miss ratio"], mrc_titles
assert histogram_titles == ["reuse distance (accesses between)", "reuses"], histogram_titles
print("axis titles:", mrc_titles, histogram_titles)
PY
pass "each file opens at its hottest line, unique path tails in the sidebar, every axis titled"

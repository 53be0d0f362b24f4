#!/usr/bin/env bash
# sprof --html in a real browser: headless Chromium loads the report of the
# two-loop program whose one heavy reuse pair is known (loop 1 → loop 2,
# hint fusion: see loc_pairs.sh), with no console error. A click on loop 2's
# line must show that line's misses as `sprof --misses` counts them and the
# pair; a click on the arrow drawn over the source, the pair's reuse-distance
# histogram and the code between. The screenshot is kept in
# BUILD/test-artifacts/. Then what a user can get wrong: a profile without
# locality records (one line, exit 1), a source file moved away since the
# run (the report is made; stderr and the page name the file).
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock task-clock)
[ -x /usr/bin/python3 ] || { echo "skipped: no /usr/bin/python3"; exit 77; }
browser() { /usr/bin/python3 "$HERE/html_browser.py" "$@"; }  # Debian's python: python3-websocket

# The program is built here, from a copy of its source: the page reads the
# source at the path the debug info names, and a user (nobody) can read it.
cp "$HERE/../workloads/locality/known/fusion.c" .
"$BIN/sprof-cc" -O1 -g -o fusion fusion.c
"$BIN/sprof_lib" -e "$events" --locality=1000 --locality-seed 3 -o split.sprof ./fusion split 2000000 8192 > /dev/null
"$BIN/sprof" --html site split.sprof > html.out 2> html.err || fail "sprof --html: $(cat html.err)"
[ -s site/index.html ] || fail "no site/index.html"
"$BIN/sprof" --reuse-pairs --cache 32K --format json split.sprof > pairs.json
"$BIN/sprof" --misses --format json split.sprof > misses.json
loop1=$(grep -n '/\* loop 1 \*/' fusion.c | cut -d: -f1)
loop2=$(grep -n '/\* loop 2 \*/' fusion.c | cut -d: -f1)
reuse=$(python3 -c 'import json; print(json.load(open("pairs.json"))["pairs"][0]["reuse"])')
case $reuse in *:"$loop2") ;; *) fail "the heavy pair's reuse is $reuse, not loop 2's line $loop2";; esac

artifacts=$BUILD/test-artifacts
mkdir -p "$artifacts" 2> /dev/null && [ -w "$artifacts" ] || artifacts=$SCRATCH  # nobody: the build tree is not theirs
if [ "$UNPRIVILEGED" = 1 ]; then shot=$artifacts/loc_html_nobody.png; else shot=$artifacts/loc_html.png; fi
browser site/index.html "$shot" "tr[data-location=\"$reuse\"]" "path.pair" > browser.json ||
    fail "the browser run: $(cat browser.json)"
python3 - browser.json misses.json pairs.json "$loop1" "$loop2" <<'PY' || fail "what the page showed: $(cat browser.json)"
import json, sys
page, misses, pairs = (json.load(open(p)) for p in sys.argv[1:4])
loop1, loop2 = sys.argv[4:6]
assert page["errors"] == [], f"console errors: {page['errors']}"
line_click, arrow_click = (c["info"] for c in page["clicks"])
pair = pairs["pairs"][0]
row = next(r for r in misses["locations"] if r["location"] == pair["reuse"])
shown = f"{round(row['misses']):,}"  # as the page writes numbers (en-US)
print(f"line {pair['reuse']}: the page shows {shown} misses at 32 KiB (sprof --misses: {row['misses']:.0f})")
assert pair["reuse"] in line_click and shown in line_click, "the line's misses are not shown"
assert f"{pair['use']} → {pair['reuse']}" in line_click and "hint fusion" in line_click, "the line's pair is not shown"
assert pair["use"].endswith(":" + loop1), f"the pair's use {pair['use']} is not loop 1's line {loop1}"
assert "Reuse distances" in arrow_click and "Code run between use and reuse" in arrow_click, "the arrow's pair"
assert f"{pair['share']:.1f}" in arrow_click and "fusion" in arrow_click, "the arrow's pair numbers"
print("ok: a click on the line and on the arrow show the views' numbers; no console error")
PY
[ -s "$shot" ] || fail "no screenshot"
pass "the report opens in Chromium without errors; line and arrow clicks show the pair (screenshot $shot)"

# A profile without locality records: one line, exit 1, no site.
"$BIN/sprof_lib" -e "$events" -o plain.sprof ./fusion split 20000 8192 > /dev/null 2>&1 || true
rc=0
"$BIN/sprof" --html plain plain.sprof > /dev/null 2> plain.err || rc=$?
[ "$rc" = 1 ] && [ "$(wc -l < plain.err)" = 1 ] || fail "no locality records: exit $rc, $(cat plain.err)"
[ ! -e plain/index.html ] || fail "a site was written for a profile without locality records"
pass "a profile without locality records: $(cat plain.err)"

# The source moved away: the report is made, and says which file it lacks.
mv fusion.c moved.c
"$BIN/sprof" --html moved split.sprof > /dev/null 2> moved.err || fail "a moved source failed the report: $(cat moved.err)"
grep -q "fusion.c.*not found" moved.err || fail "the moved source is not named: $(cat moved.err)"
browser moved/index.html moved.png > moved.json || fail "the browser run: $(cat moved.json)"
python3 - moved.json <<'PY' || fail "the page of a moved source: $(cat moved.json)"
import json, sys
page = json.load(open(sys.argv[1]))
assert page["errors"] == [], page["errors"]
PY
grep -q 'not found (moved since the run?)' moved/index.html || fail "the page does not name the moved source"
pass "a moved source: $(head -1 moved.err)"

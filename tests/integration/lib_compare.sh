#!/usr/bin/env bash
# sprof --compare BEFORE AFTER on two runs of the alternate workload that
# differ by a known change: heavy() touches 256 fresh pages a call before,
# 2048 after (-p); light() never faults. Each run counts its own CPU time
# and faults per function (the truth). The compared report must hold each
# run's truth in its intervals and the true delta in the delta's interval,
# mark heavy()'s faults changed and light()'s (0 in both runs) not; and a
# third run repeating the first marks nothing the truth did not do (its
# heavy() may make a call more or less: 256 faults, which may be marked).
source "$(dirname "$0")/common.sh" "$1"
events=task-clock,page-faults  # both counted by any user

run() { "$BIN/sprof_lib" -e "$events" -o "$1.sprof" "$WORK/alternate" -t 1.5 -m 10 -p "$2" -o "$1.txt"; }
run before 256
run after 2048
run again 256

"$BIN/sprof" --compare before.sprof --ci --format csv after.sprof > compare.csv
python3 "$HERE/check_compare.py" compare.csv before.txt after.txt "sprof_lib, -p 256 → 2048"
"$BIN/sprof" --compare before.sprof --ci --format csv again.sprof > null.csv
python3 "$HERE/check_compare.py" null.csv before.txt again.txt "sprof_lib, -p 256 twice"
pass "sprof --compare: before, after and delta hold the runs' own counts; only real changes are marked"

# Several profiles a side merge; the same run on both sides changes nothing.
"$BIN/sprof" --compare before.sprof --compare again.sprof --format csv before.sprof again.sprof > same.csv
python3 - same.csv <<'PY' || fail "a run compared with itself changed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["present"] == "both" for r in rows), [r["present"] for r in rows]
for r in rows:
    for c in r:
        if c.endswith("_delta"):
            assert float(r[c] or 0) == 0, (r["function"], c, r[c])
        if c.endswith("_significant"):
            assert r[c] in ("no", ""), (r["function"], c, r[c])
print(f"{len(rows)} functions, every delta 0, none significant")
PY

# The text and JSON views; --lines by file:line.
"$BIN/sprof" --compare before.sprof after.sprof > compare.txt
grep -q "^before: " compare.txt && grep -q "^after: " compare.txt || fail "the text report names no sides: $(head -3 compare.txt)"
"$BIN/sprof" --compare before.sprof --format json after.sprof |
    python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["before"]["profiles"] and d["functions"][0]["time_s_before"] is not None, d' ||
    fail "the JSON report"
"$BIN/sprof" --lines --compare before.sprof --format csv after.sprof > lines.csv
python3 - lines.csv before.txt after.txt <<'PY' || fail "--lines --compare"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
truth = [dict((k, float(v)) for k, v in (l.split() for l in open(p))) for p in sys.argv[2:4]]
heavy = [r for r in rows if r["function"] == "heavy"]
assert heavy and all(r["file"].endswith("alternate.c") and r["line"] for r in heavy), heavy[:1]
# heavy's lines add up to heavy's faults in each run, within its faults' 10 %.
for side, t in zip(("before", "after"), truth):
    got = sum(float(r[f"page-faults_{side}"] or 0) for r in heavy)
    print(f"--lines: heavy's lines {got:.0f} faults {side}, truth {t['heavy_faults']:.0f}")
    assert abs(got - t["heavy_faults"]) <= 0.1 * t["heavy_faults"], (side, got, t["heavy_faults"])
PY

# Wrong counts of runs: one line, exit 2.
for args in "--compare before.sprof" "--compare" "--phases --compare before.sprof after.sprof" \
            "--compare before.sprof --plot x.png after.sprof"; do
    set +e
    # shellcheck disable=SC2086  # the words are the arguments
    "$BIN/sprof" $args > out.txt 2> err.txt
    rc=$?
    set -e
    [ $rc = 2 ] && [ "$(wc -l < err.txt)" = 1 ] || fail "sprof $args: exit $rc, $(cat err.txt)"
    echo "sprof $args: $(cat err.txt)"
done
pass "sprof --compare: text, JSON, --lines, and one-line usage errors"

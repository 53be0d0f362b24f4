#!/usr/bin/env bash
# sprof's reports on synthetic profiles of known content (sprof_synth):
# exact flat CSV, merging, errors and exit codes, truncated files, phases
# with known boundaries, plots, exports, the run-time model and --mrc's errors.
set -euo pipefail
build=${1:?usage: analyze_reports.sh BUILD_DIR}
sprof=$build/bin/sprof
synth=$build/tests/sprof_synth
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_eq() { [[ "$1" == "$2" ]] || fail "$3: expected '$2', got '$1'"; }

"$synth" small "$work/small.sprof"
"$synth" phases "$work/phases.sprof"

# Flat CSV, numbers computed by hand in tests/unit/test_analyze_report.cpp.
csv=$("$sprof" --format csv "$work/small.sprof")
expect_eq "$(sed -n 1p <<<"$csv")" \
  "function,object,samples,time_s,time_pct,task-clock,page-faults,context-switches,faults_per_ms,cs_per_s" "csv header"
# The functions share out the run's page faults, 245 of their own → 256.67: × 22/21.
expect_eq "$(sed -n 4p <<<"$csv")" "memcpy,libc.so.6,20,0.2,14.285714285714286,200000000,104.76190476190477,6,0.5238095238095238,30" "memcpy row"
expect_eq "$(sed -n 2p <<<"$csv" | cut -d, -f1-8)" "compute(int),app,100,1,71.42857142857143,1000000000,130.95238095238096," \
  "compute row (context-switches unknown)"

# Two processes of one run: counts add up, shares stay.
merged=$("$sprof" --format csv --rate 'fpms=page-faults/task-clock*1e6' --no-default-rates \
  "$work/small.sprof" "$work/small.sprof")
expect_eq "$(sed -n 2p <<<"$merged")" "compute(int),app,200,2,71.42857142857143,2000000000,261.9047619047619,,0.13095238095238096" "merged compute"

# Carry-forward estimator: compute's page faults are 80 + 40.
expect_eq "$("$sprof" --format csv --estimator carry "$work/small.sprof" | sed -n 2p | cut -d, -f7)" "120" "carry estimate"

# Errors: one line on stderr; 2 for usage, 1 for a bad profile.
check_error() {
  local want=$1; shift
  local rc=0 err
  err=$("$sprof" "$@" 2>&1 >/dev/null) || rc=$?
  expect_eq "$rc" "$want" "exit status of sprof $*"
  expect_eq "$(wc -l <<<"$err")" "1" "one error line for sprof $* ($err)"
  [[ $err == sprof:* ]] || fail "error does not start with 'sprof:': $err"
}
check_error 2 --rate 'bad=page-faults/(' "$work/small.sprof"
check_error 2 --rate 'x=cycles/instructions' "$work/small.sprof"
check_error 2 --format xml "$work/small.sprof"
check_error 2 --top many "$work/small.sprof"
check_error 2
check_error 1 /etc/passwd
check_error 1 "$work/does-not-exist.sprof"
printf 'SPROF' >"$work/short.sprof"
check_error 1 "$work/short.sprof"

# --mrc on an event profile: no locality records (the model's numbers are
# checked in tests/unit/test_analyze_mrc.cpp).
check_error 1 --mrc "$work/small.sprof"
expect_eq "$("$sprof" --mrc --format csv --cache 32K "$work/small.sprof" 2>&1 >/dev/null)" \
  "sprof: $work/small.sprof: has no locality records: build the program with sprof-cc and run it under sprof_lib --locality" \
  "--mrc without locality records"
check_error 2 --mrc --policy fifo "$work/small.sprof"
check_error 2 --mrc --cache 32Q "$work/small.sprof"
check_error 2 --policy random "$work/small.sprof"
check_error 2 --cache 1M "$work/small.sprof"

# A truncated tail: a warning, and the complete interval is reported. The
# cut takes the END record (40 bytes with its checksum) and 20 bytes of the
# last interval's.
size=$(stat -c %s "$work/small.sprof")
head -c $((size - 60)) "$work/small.sprof" >"$work/cut.sprof"
out=$("$sprof" --format csv "$work/cut.sprof" 2>"$work/cut.err")
grep -q '^sprof: warning: .*truncated' "$work/cut.err" || fail "no truncation warning: $(cat "$work/cut.err")"
expect_eq "$(sed -n 2p <<<"$out" | cut -d, -f1-4)" "compute(int),app,60,0.6" "truncated profile keeps interval 0"

# --info
info=$("$sprof" --info "$work/small.sprof")
grep -q '^argv  *app --size 3$' <<<"$info" || fail "--info argv: $info"
# Live: coverage over time, by hand from the fixture: 900, 600 and 200 of 1,400 ms.
grep -q '^events  *3: task-clock (time, attributed by the ticks, live 64 %), page-faults (counted at the ticks, live 43 %), context-switches (counted at the ticks, live 14 %)$' <<<"$info" ||
    fail "--info events: $(grep '^events' <<<"$info")"
"$sprof" --info --format json "$work/small.sprof" | python3 -c '
import json, sys
live = [e["live_fraction"] for e in json.load(sys.stdin)["profiles"][0]["events"]]
assert all(abs(a - b) < 1e-12 for a, b in zip(live, [900 / 1400, 600 / 1400, 200 / 1400])), live' ||
    fail "--info JSON: live fractions"
grep -q '^intervals  *2$' <<<"$info" || fail "--info intervals"

# Phases: setup, then compress/decompress alternating every 8 intervals of 0.5 s.
phases=$("$sprof" --phases --format csv "$work/phases.sprof")
expect_eq "$(sed -n 1p <<<"$phases")" \
  "phase,label,start_s,end_s,intervals,dominant_function,samples,time_s,task-clock,page-faults,context-switches,faults_per_ms,cs_per_s" \
  "phase header"
expect_eq "$(tail -n +2 <<<"$phases" | cut -d, -f2-5 | tr '\n' ' ')" \
  "A,0,2.5,5 B,2.5,6.5,8 C,6.5,10.5,8 B,10.5,14.5,8 C,14.5,18.5,8 B,18.5,22.5,8 C,22.5,26.5,8 " "phase spans"
expect_eq "$("$sprof" --phases=func:compress --format csv "$work/phases.sprof" | tail -n +2 | cut -d, -f2 | tr '\n' ' ')" \
  "idle running idle running idle running idle " "func:compress phases"

# Time line: one row per interval; rates from the interval's own counts.
expect_eq "$("$sprof" --timeline --format csv "$work/phases.sprof" | tail -n +2 | wc -l)" "53" "timeline rows"

# Plot: a real PNG and SVG.
"$sprof" --phases --plot "$work/p.png" "$work/phases.sprof" >/dev/null
expect_eq "$(head -c 8 "$work/p.png" | od -An -tx1 | tr -d ' \n')" "89504e470d0a1a0a" "PNG signature"
[[ $(stat -c %s "$work/p.png") -gt 20000 ]] || fail "PNG too small to hold a plot"
"$sprof" --plot "$work/p.svg" --plot-rate cs_per_s "$work/phases.sprof"
grep -q '<svg' "$work/p.svg" || fail "SVG has no <svg>"
check_error 2 --plot "$work/p.png" --plot-rate nosuch "$work/phases.sprof"

# Chrome trace and WARP vectors are valid JSON with the expected content.
"$sprof" --export chrome-trace "$work/trace.json" "$work/phases.sprof"
python3 - "$work/trace.json" <<'PY' || fail "chrome trace"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
phases = [e for e in ev if e["ph"] == "X" and e["name"].startswith("phase ")]
assert [p["name"] for p in phases] == ["phase A"] + ["phase B", "phase C"] * 3, phases
assert phases[1]["ts"] == 2.5e6 and phases[1]["dur"] == 4e6, phases[1]
assert sum(1 for e in ev if e["ph"] == "C" and e["name"] == "faults_per_ms") == 53
PY
# A counter track per event, its count and its count per second, interval by
# interval as the time line gives them (the fixture's numbers by hand: each
# function's flat estimate shared by the intervals as their own estimates
# are: compute 125 as 90 : 40, main 20 in interval 0, each × 22/21, its share
# of the run's total; so interval 0 has (125·90/130 + 20)·22/21 =
# 1385/13·22/21 = 111.61 faults, and 139.51 per s).
"$sprof" --export chrome-trace "$work/small-trace.json" "$work/small.sprof"
"$sprof" --timeline --format csv "$work/small.sprof" > "$work/small-timeline.csv"
python3 - "$work/small-trace.json" "$work/small-timeline.csv" <<'PY' || fail "chrome trace: event counter tracks"
import csv, json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "C"]
rows = list(csv.DictReader(open(sys.argv[2])))
for name in ("task-clock", "page-faults", "context-switches"):
    for suffix, of in (("", lambda r: float(r[name])), (" per s", lambda r: float(r[name]) / float(r["time_s"]))):
        track = [e["args"][name + suffix] for e in ev if e["name"] == name + suffix]
        want = [of(r) for r in rows]
        assert len(track) == len(want) and all(abs(a - b) <= 1e-9 * max(1, abs(b)) for a, b in zip(track, want)), \
            (name + suffix, track, want)
faults0 = 1385 / 13 * 22 / 21
assert abs([e for e in ev if e["name"] == "page-faults"][0]["args"]["page-faults"] - faults0) < 1e-9
assert abs([e for e in ev if e["name"] == "page-faults per s"][0]["args"]["page-faults per s"] - faults0 / 0.8) < 1e-9
PY
# A counter track per rate, the default ones and those of --rate, each the
# time line's value row by row (a row where a rate is unknown has no point).
# By hand: interval 0 has 1385/13·22/21 = 111.61 faults in 800 ms of
# task-clock and 80 samples: 0.1395 per ms, 1.395 per sample.
"$sprof" --export chrome-trace "$work/rates-trace.json" --rate 'faults_per_sample=page-faults/samples' "$work/small.sprof"
"$sprof" --timeline --format csv --rate 'faults_per_sample=page-faults/samples' "$work/small.sprof" > "$work/rates-timeline.csv"
python3 - "$work/rates-trace.json" "$work/rates-timeline.csv" <<'PY' || fail "chrome trace: rate counter tracks"
import csv, json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "C"]
rows = list(csv.DictReader(open(sys.argv[2])))
for rate in ("faults_per_ms", "cs_per_s", "faults_per_sample"):
    track = [(e["ts"], e["args"][rate]) for e in ev if e["name"] == rate]
    want = [(float(r["start_s"]) * 1e6, float(r[rate])) for r in rows if r[rate] != ""]
    assert len(track) == len(want) == 2 and all(abs(a - c) < 1e-6 and abs(b - d) <= 1e-9 * abs(d) for (a, b), (c, d) in zip(track, want)), \
        (rate, track, want)
faults0 = 1385 / 13 * 22 / 21
assert abs([e for e in ev if e["name"] == "faults_per_ms"][0]["args"]["faults_per_ms"] - faults0 / 800) < 1e-12
assert abs([e for e in ev if e["name"] == "faults_per_sample"][0]["args"]["faults_per_sample"] - faults0 / 80) < 1e-12
PY
# Gecko profile (Firefox Profiler): a strict check of the format
# (check_gecko.py), then the fixture's numbers by hand. Interval 0 (0-1000 ms):
# compute 60 samples and main 20, 10 ms of CPU each, spread over the second
# with 3 compute for every main; interval 1: compute 40, memcpy 20.
"$sprof" --export gecko "$work/small.json" "$work/small.sprof"
python3 "$(dirname "$0")/check_gecko.py" "$work/small.json" > "$work/small-gecko.json" || fail "gecko: format"
python3 - "$work/small-gecko.json" "$work/small.json" "$work/small-timeline.csv" <<'PY' || fail "gecko: the fixture's numbers"
import csv, json, sys
(p,) = json.load(open(sys.argv[1]))["processes"]
doc, rows = json.load(open(sys.argv[2])), list(csv.DictReader(open(sys.argv[3])))
assert p["startTime"] == 1.7e12 and doc["meta"]["interval"] == 10, (p["startTime"], doc["meta"]["interval"])
main, app = p["threads"]
assert (main["name"], main["processName"], main["tid"], main["functions"]) == ("GeckoMain", "app (pid 4242)", 4242, {}), main
assert main["markers"] == [["phase A", 0, 2000]], main["markers"]
assert (app["name"], app["tid"], app["pid"]) == ("app", 100, 4242), app
f = app["functions"]
assert {n: (v["samples"], round(v["cpu_ns"])) for n, v in f.items()} == \
    {"compute(int)": (100, 10**9), "main": (20, 2 * 10**8), "memcpy": (20, 2 * 10**8)}, f
t = doc["threads"][1]
frames = [t["stringTable"][fr[0]] for fr in t["frameTable"]["data"]]
assert sorted(frames) == ["compute(int) (in app)", "main (in app)", "memcpy (in libc.so.6)"], frames
samples = t["samples"]["data"]
name = lambda s: frames[t["stackTable"]["data"][s[0]][1]].split(" (in ")[0]
times = [s[1] for s in samples]
assert len(samples) == 140 and times[0] == 6.25 and times[79] == 993.75 and abs(times[80] - 1000 - 1000 / 120) < 1e-9, times[:3]
first_half = [name(s) for s in samples if s[1] < 500]
assert first_half.count("compute(int)") == 30 and first_half.count("main") == 10, first_half
assert first_half[:4] == ["compute(int)", "compute(int)", "main", "compute(int)"], first_half[:4]
assert all(s[3] == 1e7 for s in samples), "every sample stands for 10 ms of CPU"
# A counter per event: its estimate per row as --timeline gives it, as the
# count since the point before (the first row's start).
for event in ("task-clock", "page-faults", "context-switches"):
    want = [[0, 0]] + [[float(r["end_s"]) * 1000, float(r[event])] for r in rows]
    got = p["counters"][event]
    assert len(got) == len(want) and all(abs(a - b) <= 1e-9 * max(1, abs(b)) for g, w in zip(got, want) for a, b in zip(g, w)), (event, got, want)
assert abs(p["counters"]["page-faults"][1][1] - 1385 / 13 * 22 / 21) < 1e-9
PY
"$sprof" --export gecko "$work/phases.json" "$work/phases.sprof"
"$sprof" --phases --format csv "$work/phases.sprof" > "$work/phases.csv"
python3 "$(dirname "$0")/check_gecko.py" "$work/phases.json" > "$work/phases-gecko.json" || fail "gecko: format of phases"
python3 - "$work/phases-gecko.json" "$work/phases.csv" <<'PY' || fail "gecko: phases as markers"
import csv, json, sys
(p,) = json.load(open(sys.argv[1]))["processes"]
phases = [["phase " + r["label"], float(r["start_s"]) * 1000, float(r["end_s"]) * 1000] for r in csv.DictReader(open(sys.argv[2]))]
assert p["threads"][0]["markers"] == phases, (p["threads"][0]["markers"], phases)
PY

# Export errors: one line, exit 1 (2 for an unknown format), and no file
# left behind, even when writing fails half-way (a file size limit of 0).
check_error 2 --export svg "$work/x.svg" "$work/small.sprof"
for kind in chrome-trace pprof gecko; do
  check_error 1 --export $kind "$work/no-such-dir/out" "$work/small.sprof"
  expect_eq "$("$sprof" --export $kind "$work/no-such-dir/out" "$work/small.sprof" 2>&1)" \
    "sprof: cannot write $work/no-such-dir/out (No such file or directory)" "$kind: unwritable file"
  rc=0
  err=$( (trap '' XFSZ; ulimit -f 0; exec "$sprof" --export $kind "$work/cut-$kind" "$work/phases.sprof") 2>&1) || rc=$?
  expect_eq "$rc:$err" "1:sprof: cannot write $work/cut-$kind (File too large)" "$kind: a write that fails half-way"
  [[ ! -e $work/cut-$kind ]] || fail "$kind: a half-written $work/cut-$kind was left behind"
done

"$sprof" --warp "$work/small.sprof" | python3 -c '
import json, sys
w = json.load(sys.stdin)
f = {x["function"]: x for x in w["functions"]}
assert f["memcpy"]["events"]["page-faults"]["per_s"] == 500, f["memcpy"]
assert f["compute(int)"]["events"]["context-switches"]["total"] is None
' || fail "warp vectors"

# Every report adds up to the flat report and it to the run's total, on each
# profile and on both merged (multiplexed events: coverage's shares are not
# the parts' own).
for set in "$work/small.sprof" "$work/phases.sprof" "$work/small.sprof $work/phases.sprof"; do
  # shellcheck disable=SC2086  # a set of profiles, split on purpose
  python3 "$(dirname "$0")/check_conservation.py" --run-total "$sprof" $set || fail "conservation: $set"
done

if ((failures)); then
  echo "analyze_reports: $failures failed" >&2
  exit 1
fi
echo "analyze_reports: all checks passed"

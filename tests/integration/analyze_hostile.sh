#!/usr/bin/env bash
# sprof on hostile and broken files (issue 9 item 5): every report answers
# each with a result or one line "sprof: FILE: what (why)" and exit 1, within
# a time and memory bound. The crafted files come from fuzz/hostile_profiles.py;
# each once crashed sprof, asked for ~100 GB, or ran for seconds to minutes.
source "$(dirname "$0")/common.sh" "$1"
SPROF=$BIN/sprof
python3 "$HERE/../../fuzz/hostile_profiles.py" "$SCRATCH"

# run_bounded OUT ERR ARGS…: sprof with 10 s and 600 MB (the fixed reader and
# analyzer need well under 100 MB for every file here); prints its exit status.
run_bounded() {
    local out=$1 err=$2; shift 2
    local rc=0
    (ulimit -v 600000; exec timeout 10 "$SPROF" "$@") >"$out" 2>"$err" || rc=$?
    echo "$rc"
}

# every_report FILE WANT_RC [ERROR]: all reports and outputs on FILE end
# with WANT_RC; stderr is only "sprof: " lines, exactly ERROR when given.
every_report() {
    local file=$1 want=$2 error=${3:-}
    local -a reports=("" --inline --info --timeline "--timeline --by-function" --phases --warp
                      --lines "--lines --inline"
                      "--export chrome-trace $SCRATCH/trace.json" "--export pprof $SCRATCH/profile.pb.gz"
                      "--export gecko $SCRATCH/gecko.json" "--plot $SCRATCH/plot.png --rate per_s=samples/time"
                      "--calibrate -o $SCRATCH/machine.json")
    local r rc
    for r in "${reports[@]}"; do
        # shellcheck disable=SC2086  # $r is several words on purpose
        rc=$(run_bounded out.txt err.txt $r "$file")
        # A model may not be fittable from one odd profile: a one-line error.
        if [[ $r == --calibrate* && $want -eq 0 && $rc -eq 1 && $(wc -l <err.txt) -eq 1 ]]; then rc=0; fi
        [ "$rc" -eq "$want" ] || fail "sprof $r $file: exit $rc, not $want ($(head -c 300 err.txt))"
        if grep -qv '^sprof: ' err.txt; then fail "sprof $r $file: stderr has a line not from sprof: $(cat err.txt)"; fi
        if [ -n "$error" ]; then
            [ "$(cat err.txt)" = "$error" ] || fail "sprof $r $file: error '$(cat err.txt)', not '$error'"
        fi
    done
}

# seq 0xffffffff once made the time line index rows[seq] after a
# resize(seq + 1) that wrapped to 0 (SIGSEGV); 0x7ffffffe asked for ~100 GB.
# A sequence number orders rows: two distinct ones are two rows.
for seq in ffffffff 7ffffffe; do
    every_report seq-$seq.sprof 0
    rc=$(run_bounded tl.csv err.txt --timeline --format csv seq-$seq.sprof)
    [ "$rc" -eq 0 ] || fail "timeline of seq-$seq: exit $rc"
    [ "$(cut -d, -f1,4 tl.csv | tr '\n' ' ')" = "interval,samples 0,1 1,1 " ] ||
        fail "timeline of seq-$seq: rows $(cut -d, -f1,4 tl.csv | tr '\n' ' ')"
done
pass "seq 0xffffffff and 0x7ffffffe: two time-line rows, every report"

every_report duplicate-events.sprof 1 \
    "sprof: duplicate-events.sprof: corrupt HEADER record at byte 16 (event page-faults listed twice)"
# 100,000 events took 27 s (a linear search per event when merging).
every_report events-100k.sprof 1 \
    "sprof: events-100k.sprof: corrupt HEADER record at byte 16 (100000 events, more than the 1024 a profile may have)"
pass "event lists: duplicates and too many are one-line errors"

# 40,000 functions no interval uses × 1,000 events: the flat report once
# allocated a row of event sums for each (~1 GB from a 1 MB file).
every_report unused-functions.sprof 0
# 100,000 one-cell parts of a 20,000-cell interval merge into it.
every_report parts-many.sprof 0
rc=$(run_bounded flat.csv err.txt --format csv parts-many.sprof)
[ "$(sed -n 2p flat.csv | cut -d, -f1,3)" = "f19999,100001" ] || fail "parts-many: top row $(sed -n 2p flat.csv)"
[ "$(wc -l <flat.csv)" -eq 20001 ] || fail "parts-many: $(wc -l <flat.csv) lines, not 20,001"
# 100,000 rows alike: phase detection took rows² steps.
every_report rows-many.sprof 0
rc=$(run_bounded phases.csv err.txt --phases --format csv rows-many.sprof)
[ "$(sed -n 2p phases.csv | cut -d, -f1,5)" = "1,100000" ] || fail "rows-many: phases $(cat phases.csv)"
# Rows whose sequence runs against time, and 120,000 samples in 2 µs: the
# Gecko export stays in the format (points and markers in time order), the
# samples thinned to one per microsecond, with a warning.
rc=$(run_bounded out.txt err.txt --export gecko "$SCRATCH/rows.json" rows-many.sprof)
python3 "$HERE/check_gecko.py" "$SCRATCH/rows.json" > /dev/null || fail "rows-many: the Gecko export breaks its format"
rc=$(run_bounded out.txt err.txt --export gecko "$SCRATCH/parts.json" parts-many.sprof)
python3 "$HERE/check_gecko.py" "$SCRATCH/parts.json" > /dev/null || fail "parts-many: the Gecko export breaks its format"
grep -q '^sprof: warning: --export gecko: 1 interval held more samples than its span allows' err.txt ||
    fail "parts-many: no warning of thinned samples: $(cat err.txt)"
# 10^12 samples in eleven days, and 300,000 of a real shape: a Gecko export
# holds 200,000; the second keeps each function's share and CPU time.
every_report samples-many.sprof 0
every_report samples-300k.sprof 0
rc=$(run_bounded out.txt err.txt --export gecko "$SCRATCH/300k.json" samples-300k.sprof)
[ "$rc" -eq 0 ] || fail "samples-300k: --export gecko exit $rc"
grep -q '^sprof: warning: --export gecko: 300000 samples, more than the 200000 a Gecko export holds' err.txt ||
    fail "samples-300k: no warning of thinned samples: $(cat err.txt)"
python3 "$HERE/check_gecko.py" "$SCRATCH/300k.json" > 300k-summary.json || fail "samples-300k: the Gecko export breaks its format"
python3 - 300k-summary.json <<'PY' || fail "samples-300k: thinned, the Gecko export loses shares or CPU time"
import json, sys
f = json.load(open(sys.argv[1]))["processes"][0]["threads"][1]["functions"]
total = sum(x["samples"] for x in f.values())
assert 199_990 <= total <= 200_000, total
for name, n in (("a", 25), ("b", 17), ("c", 8)):
    assert abs(f[name]["samples"] - 200_000 * n / 50) <= 1, (name, f[name])
    assert abs(f[name]["cpu_ns"] - 6000 * n * 1e7) <= 1.5e7, (name, f[name])  # within a kept sample's CPU time
PY
pass "unused functions, many parts, many rows: bounded, and the right sums"

# A symbol name that is not UTF-8 (found by the fuzzer): JSON outputs
# replace the bad bytes with U+FFFD instead of failing.
every_report name-not-utf8.sprof 0
rc=$(run_bounded warp.json err.txt --warp name-not-utf8.sprof)
python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["functions"][0]["function"]; assert f == "caf\ufffd", f' \
    warp.json || fail "name-not-utf8: --warp JSON $(head -c 300 warp.json)"
pass "a name that is not UTF-8 comes out as U+FFFD in JSON"

# Event names may contain '/', so a default rate can fail to parse (found by
# the fuzzer): it is left out, the other rates stay, no usage error.
every_report event-name-ambiguous.sprof 0
rc=$(run_bounded flat.csv err.txt --format csv event-name-ambiguous.sprof)
[ "$(head -1 flat.csv)" = "function,object,samples,time_s,time_pct,task-clock,page-faults,page-faults/task,page-faults/task_per_ms" ] ||
    fail "event-name-ambiguous: columns $(head -1 flat.csv)"
pass "a default rate that does not parse is left out"

# Source lines (format 1.6): a file of every kind of source-line record;
# 40,000 locations of a function with a 1 MB name, sharing a 100 kB file
# name, each in code of its own inlined function, × 1,000 events (a copy of a
# name or its hash per location, or a function with a row of event sums per
# inlined name, would cost gigabytes or minutes);
# 100,000 one-cell LINE_CELLS parts of a 20,000-cell interval.
every_report source-lines.sprof 0
rc=$(run_bounded lines.csv err.txt --lines --inline --format csv source-lines.sprof)
[ "$(cut -d, -f1,2,4 lines.csv | tr '\n' ' ')" = "source,function,samples sq.h:3,square,4 app.c:10,work,3 ??:0,[unknown],1 " ] ||
    fail "source-lines: --lines --inline $(cat lines.csv)"
rc=$(run_bounded lines.csv err.txt --lines --format csv source-lines.sprof)
[ "$(cut -d, -f1,2,4 lines.csv | tr '\n' ' ')" = "source,function,samples app.c:12,work,4 app.c:10,work,3 ??:0,[unknown],1 " ] ||
    fail "source-lines: --lines $(cat lines.csv)"
rc=$(run_bounded lines.csv err.txt --lines=func:work --format csv source-lines.sprof)
[ "$(cut -d, -f1,4 lines.csv | tr '\n' ' ')" = "source,samples app.c:10,3 app.c:12,4 " ] ||
    fail "source-lines: --lines=func:work $(cat lines.csv)"
every_report locations-many.sprof 0
every_report line-parts-many.sprof 0
rc=$(run_bounded lines.csv err.txt --lines --format csv line-parts-many.sprof)
[ "$(sed -n 2p lines.csv | cut -d, -f1,4)" = "a.c:20000,100001" ] || fail "line-parts-many: top row $(sed -n 2p lines.csv)"
[ "$(wc -l <lines.csv)" -eq 20001 ] || fail "line-parts-many: $(wc -l <lines.csv) lines, not 20,001"
pass "source lines: every report; many locations and many parts bounded, and the right sums"

# Not profiles at all: one line each, and /dev/zero is not read without end.
mkdir adir
every_report /dev/zero 1 "sprof: /dev/zero: not an sprof profile (bad magic)"
every_report adir 1 "sprof: adir: not a profile (Is a directory)"
every_report missing.sprof 1 "sprof: missing.sprof: cannot open (No such file or directory)"
pass "/dev/zero, a directory, a missing file: one-line errors"

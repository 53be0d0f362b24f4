#!/usr/bin/env bash
# sprof --misses (and the other views) on a pointer chase through a shuffled
# list whose answer is known by hand: 65,536 nodes of one 64-byte line each
# (4 MiB) in one random cycle, followed 20 times round
# (tests/workloads/locality/kernels.c). Every step loads the next pointer
# from a line last touched 65,536 accesses before: it misses in 32 KiB and
# in 1 MiB alike, so the exact run counts 1,310,720 misses at chase's load
# in both, the most of any instruction; it uses 8 of the line's 64 bytes
# (12.5 %) once. The top line is named FILE:LINE, kernels.c's line marked
# "chase's load". Sampled (1 in 1000), chase's load must be the top line too;
# its misses are those reuses plus the cold miss each line's last access
# stands for (65,536: the setup's first touches, charged to the last
# access, which is chase's), within five binomial standard errors. The data
# view names the nodes' heap block by its allocation's line (marked); the
# reuse pairs have chase's load reusing itself, hint tiling+layout (8 of 64
# bytes). Then bad input: one line each, and the exit status sprof
# documents.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock task-clock)
N=65536 R=20

chase=("$WORK/loc_kernels" -k chase -n $N -r $R)
"$BIN/sprof_lib" -e "$events" --locality=1000 --locality-seed 3 -o sampled.sprof "${chase[@]}" > /dev/null
"$BIN/sprof_lib" -e "$events" --locality=exact -o exact.sprof "${chase[@]}" > /dev/null
for m in sampled exact; do
    "$BIN/sprof" --misses --format csv "$m.sprof" > "$m.misses.csv"
    "$BIN/sprof" --use --format csv "$m.sprof" > "$m.use.csv"
done
"$BIN/sprof" --data --cache 32K --format csv sampled.sprof > data.csv
"$BIN/sprof" --reuse-pairs --format json sampled.sprof > pairs.json
"$BIN/sprof" --misses --by function --cache 1M --format json sampled.sprof > functions.json
head -1 sampled.misses.csv | grep -q '^location,accesses_pct,miss_ratio,misses,miss_ratio_1M,misses_1M,' ||
    fail "--misses CSV header: $(head -1 sampled.misses.csv)"
head -1 sampled.use.csv | grep -q '^location,spatial_use,temporal_use,' || fail "--use CSV header: $(head -1 sampled.use.csv)"

python3 - $N $R "$HERE/../workloads/locality/kernels.c" <<'PY' || fail "chase's misses, use, data or pairs differ from the known answer"
import csv, json, math, re, sys
n, rounds = int(sys.argv[1]), int(sys.argv[2])
# A line is FILE:LINE, FILE the full path of the source the program was built from.
source = open(sys.argv[3]).read().splitlines()
marked = lambda mark: next(i + 1 for i, line in enumerate(source) if f"/* {mark} */" in line)
at_line = lambda location, line: re.fullmatch(rf"/.*/kernels\.c:{line}", location) is not None
rows = lambda p: list(csv.DictReader(open(p)))
sampled, exact = rows("sampled.misses.csv"), rows("exact.misses.csv")
s, e = sampled[0], exact[0]
print(f"top line: sampled {s['location']} ({s['function']}), exact {e['location']} ({e['function']})")
assert s["location"] == e["location"] and e["function"] == "chase", (s, e)
assert at_line(e["location"], marked("chase's load")), (e["location"], marked("chase's load"))
for col in ("misses", "misses_1M"):
    assert int(float(e[col])) == n * rounds, (col, e[col])
# Sampled: a share p of the accesses is charged to chase's load; each sample
# lands there with that probability (binomial over the samples).
samples = json.load(open("functions.json"))["locality"]["samples"]
accesses = sum(float(r["accesses"]) for r in sampled)
want = n * rounds + n
p = want / accesses
tolerance = 5 * accesses * math.sqrt(p * (1 - p) / samples)
for col in ("misses", "misses_1M"):
    got = float(s[col])
    print(f"  {col}: sampled {got:.0f}, exact {e[col]} + {n} cold = {want} (± {tolerance:.0f})")
    assert abs(got - want) <= tolerance, (col, got, want)

use = {r["location"]: r for r in rows("sampled.use.csv")}, {r["location"]: r for r in rows("exact.use.csv")}
for run, u in zip(("sampled", "exact"), use):
    r = u[s["location"]]
    print(f"  {run} use: spatial {r['spatial_use']} %, temporal {r['temporal_use']} over {r['tenures']} tenures ({r['access']})")
    assert r["access"] == "load" and float(r["spatial_use"]) == 12.5 and float(r["temporal_use"]) == 0, r

data = rows("data.csv")
share = float(data[0]["misses"]) / sum(float(r["misses"]) for r in data)
print(f"  data: {data[0]['data']} ({data[0]['kind']}) holds {100 * share:.1f} % of the misses")
assert data[0]["kind"] == "heap" and share >= 0.9, data[0]
assert at_line(data[0]["data"].removeprefix("heap@"), marked("heap: every block")), data[0]

pairs = json.load(open("pairs.json"))
top = pairs["pairs"][0]
print(f"  pair: {top['use']} -> {top['reuse']}, {top['share']:.1f} % of the capacity misses, hint {top['hint']}")
assert top["use"] == top["reuse"] == s["location"] and top["share"] >= 85 and top["hint"] == "tiling+layout", top
PY
pass "pointer chase: the top line by misses is chase's load in both modes, every step a miss, 12.5 % of each line used"

# Bad input: one line on stderr each, exit 1 for a profile the view cannot
# use, 2 for options it cannot answer.
expect_error() {
    local status=$1 want=$2 rc=0
    shift 2
    "$BIN/sprof" "$@" > out.txt 2> err.txt || rc=$?
    [ "$rc" = "$status" ] || fail "sprof $*: exit $rc, not $status ($(cat err.txt))"
    [ "$(wc -l < err.txt)" = 1 ] || fail "sprof $*: not one line: $(cat err.txt)"
    grep -qF -- "$want" err.txt || fail "sprof $*: said '$(cat err.txt)', not '$want'"
}
"$BIN/sprof_lib" -e "$events" -o events.sprof "$WORK/loc_kernels_plain" -k stream -n 1000 -r 10 > /dev/null
for view in --misses --use --data --reuse-pairs; do
    expect_error 1 "events.sprof: has no locality records: build the program with sprof-cc and run it under sprof_lib --locality" \
        $view events.sprof
done
expect_error 2 "sprof: --line-size 128: the profile was collected with 64-byte lines" --misses --line-size 128 sampled.sprof
expect_error 2 "sprof: invalid --line-size '96' (bytes, a power of two from 8 to 4096)" --use --line-size 96 sampled.sprof
expect_error 2 "sprof: invalid --cache '32Q' (a size in bytes: 32K, 1M or 4096)" --misses --cache 32K,32Q sampled.sprof
expect_error 2 "sprof: --cache 16 B: smaller than one 64-byte line" --use --cache 16 sampled.sprof
expect_error 2 "sprof: the exact run counted misses per instruction at 32 KiB, 256 KiB, 1 MiB, 2 MiB, 16 MiB only, not 48 KiB" \
    --misses --cache 48K exact.sprof
expect_error 1 "an exact run records no data objects" --data exact.sprof
expect_error 1 "an exact run records no reuse samples" --reuse-pairs exact.sprof
expect_error 2 "sprof: --by needs --misses, --use, --data, --reuse-pairs or --html" --mrc --by line sampled.sprof
pass "views of a profile without locality records, a line size or cache the profile cannot answer: one line each"

#!/usr/bin/env bash
# sprof --reuse-pairs on programs whose reuse pairs are known.
#  * Two loops over each 64 KiB block of a large array, one after the
#    other (tests/workloads/locality/known/fusion.c, -O1): loop 1 loads and
#    stores each element, loop 2 loads it. Of the 24 accesses a line gets,
#    23 have a next one; the one from loop 1's last store to loop 2's first
#    load spans the block (1024 lines) and misses in 32 KiB: 1 in 23 reuses,
#    all in one pair. The heavy pair must lead from loop 1's line to loop
#    2's (the reported FILE:LINE locations against the source's marked
#    lines), with a fusion hint; fused into one loop, the long reuses
#    must be gone.
#  * A naive and a tiled matrix multiply (tests/workloads/locality/kernels.c,
#    128×128 doubles): the share of reuses longer than a 32 KiB cache,
#    sampled, against the exact run's (capacity misses = misses at 32 KiB −
#    cold misses, which are the misses at 1 GiB, over the accesses that are
#    not cold), within five binomial standard errors; tiling must cut it to
#    less than a quarter, and the naive product's pairs are one loop nest:
#    a tiling hint; the tiled one's pairs none (their misses are under 1 %
#    of the reuses: nothing to gain).
#  * Array-of-structs field reads (tests/workloads/locality/known/layout.c
#    aos: one 8-byte field of each 64-byte particle read, another written):
#    every heavy pair's hint says layout, each from its own samples (the
#    self-reuse of the store loop once took its cluster's fusion+layout).
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock task-clock)

sampled() { "$BIN/sprof_lib" -e "$events" --locality=1000 --locality-seed 3 -o "$@" > /dev/null; }
pairs() { "$BIN/sprof" --reuse-pairs --cache 32K --format json "$1" > "${1%.sprof}.json"; }

sampled split.sprof "$WORK/loc_fusion" split 2000000 8192
sampled fused.sprof "$WORK/loc_fusion" fused 2000000 8192
pairs split.sprof
pairs fused.sprof
"$BIN/sprof" --reuse-pairs --cache 32K --format csv split.sprof > split.csv
head -1 split.csv | grep -q '^use,reuse,share,hint,' || fail "--reuse-pairs CSV header: $(head -1 split.csv)"

# The source lines of the two loops; the reported locations must be
# FILE:LINE with the full path of the source the program was built from.
src=$HERE/../workloads/locality/known/fusion.c
loop1=$(grep -n '/\* loop 1 \*/' "$src" | cut -d: -f1)
loop2=$(grep -n '/\* loop 2 \*/' "$src" | cut -d: -f1)
use=$(python3 -c 'import json; print(json.load(open("split.json"))["pairs"][0]["use"])')
reuse=$(python3 -c 'import json; print(json.load(open("split.json"))["pairs"][0]["reuse"])')
echo "heaviest pair: $use → $reuse; loop 1 is fusion.c:$loop1, loop 2 fusion.c:$loop2"
at_line() {  # LOCATION LINE: LOCATION is /…/fusion.c:LINE
    [[ $1 == /*/fusion.c:$2 ]]
}
at_line "$use" "$loop1" || fail "the heavy pair's use $use is not loop 1 (/…/fusion.c:$loop1)"
at_line "$reuse" "$loop2" || fail "the heavy pair's reuse $reuse is not loop 2 (/…/fusion.c:$loop2)"
python3 - split.json fused.json <<'PY' || fail "the two loops' pair, its share or its hint"
import json, math, sys
split, fused = (json.load(open(p)) for p in sys.argv[1:3])
top = split["pairs"][0]
n = split["locality"]["samples"]
want = 1 / 23
sd = math.sqrt(want * (1 - want) / n)
print(f"split: long reuses {100 * split['long_reuse_share']:.2f} % (known {100 * want:.2f} ± {500 * sd:.2f}), "
      f"heaviest pair {top['share']:.1f} % of them, hint {top['hint']}; between: "
      + ", ".join(f"{b['location']} {100 * b['share']:.0f} %" for b in top["between"][:3]))
print(f"fused: long reuses {100 * fused['long_reuse_share']:.3f} %")
assert abs(split["long_reuse_share"] - want) <= 5 * sd, split["long_reuse_share"]
assert top["share"] >= 95 and top["hint"] == "fusion", top
assert fused["long_reuse_share"] <= 0.1 * split["long_reuse_share"], fused["long_reuse_share"]
PY
pass "two loops over one block: the heavy pair leads from loop 1 to loop 2, hint fusion; fused, its long reuses are gone"

for k in matmul blocked; do
    sampled "$k.sprof" "$WORK/loc_kernels" -k $k -n 128 -r 2
    "$BIN/sprof_lib" -e "$events" --locality=exact -o "$k.exact.sprof" "$WORK/loc_kernels" -k $k -n 128 -r 2 > /dev/null
    pairs "$k.sprof"
    "$BIN/sprof" --mrc --format csv "$k.exact.sprof" > "$k.exact.csv"
done
python3 - <<'PY' || fail "the share of long reuses of the matrix multiplies"
import csv, json, math
share = {}
for k in ("matmul", "blocked"):
    s = json.load(open(f"{k}.json"))
    curve = {int(r["cache_bytes"]): float(r["miss_ratio"]) for r in csv.DictReader(open(f"{k}.exact.csv"))}
    cold = curve[max(curve)]
    exact = (curve[32768] - cold) / (1 - cold)
    n = s["locality"]["samples"]
    sd = math.sqrt(exact * (1 - exact) / n)
    sampled = s["long_reuse_share"]
    hints = [c["hint"] for c in s["clusters"]]
    print(f"{k}: reuses longer than 32 KiB {100 * sampled:.3f} % sampled, {100 * exact:.3f} % exact "
          f"(± {500 * sd:.3f}); clusters' hints {hints}")
    assert abs(sampled - exact) <= 5 * sd, (k, sampled, exact)
    share[k] = (sampled, exact)
    if k == "matmul":
        assert s["clusters"][0]["hint"].startswith("tiling"), s["clusters"][0]
        assert all(p["hint"] == "tiling" for p in s["pairs"]), [p["hint"] for p in s["pairs"]]
    else:
        assert all(p["hint"] == "-" for p in s["pairs"]), [p["hint"] for p in s["pairs"]]
for run in (0, 1):
    assert share["blocked"][run] < 0.25 * share["matmul"][run], share
PY
pass "matrix multiply: long reuses as the exact run counts them, tiled under a quarter of naive, naive's hint tiling, tiled's none"

sampled aos.sprof "$WORK/loc_layout" aos 1000000 10
pairs aos.sprof
python3 - aos.json <<'PY' || fail "the array-of-structs pairs' hints"
import json, sys
s = json.load(open(sys.argv[1]))
hints = [(p["use"].rsplit(":", 1)[-1], p["reuse"].rsplit(":", 1)[-1], round(p["share"], 1), p["hint"]) for p in s["pairs"]]
print(f"aos: pairs (use line, reuse line, share %, hint) {hints}")
assert s["pairs"] and all("layout" in p["hint"] for p in s["pairs"]), hints
# A self-reuse (one statement going round) is never hinted fusion.
assert all(not p["hint"].startswith("fusion") for p in s["pairs"] if p["use"] == p["reuse"]), hints
PY
pass "array-of-structs field reads: every heavy pair hinted layout, from its own samples"

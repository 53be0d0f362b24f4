#!/usr/bin/env bash
# sprof --mrc --compare and --misses --compare on loop fusion
# (tests/workloads/locality/known/fusion.c): each 2 MiB block of a 16 MB
# array walked by two loops (split: loop 1 loads and stores, loop 2 loads:
# 24 accesses a line) or by one (fused: the sum takes the value loaded, 16
# accesses a line). In an LRU cache smaller than a block loop 2 misses every
# line loop 1 brought in: 2 misses a line split, 1 fused, the miss ratio
# falls from 2/24 to 1/16; from a block up both miss once a line, cold, and
# the ratio rises from 1/24 to 1/16 (fewer accesses, as many misses). The
# exact simulators (--locality=exact) give both curves: the compared exact
# curves must be theirs, value for value. Sampled, at every size the
# delta's interval (from the two bands) holds the exact delta, and a change
# marked significant is one the exact curves make, in their direction: a
# fall below a block, a rise above (near a block's size, where StatStack
# rounds the step off, the bands overlap and nothing is marked). The
# loops' misses in 1 MiB fall by what the exact runs count.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
[ -x "$WORK/loc_fusion" ] || { echo "skipped: no sprof-cc build of the locality workloads"; exit 77; }
events=$(choose_events task-clock task-clock)

for mode in split fused; do
    "$BIN/sprof_lib" -e "$events" --locality=1000 --locality-seed 3 -o $mode.sprof \
        "$WORK/loc_fusion" $mode 2000000 262144 > /dev/null
    "$BIN/sprof_lib" -e "$events" --locality=exact -o $mode.exact.sprof \
        "$WORK/loc_fusion" $mode 2000000 262144 > /dev/null
    "$BIN/sprof" --mrc --format csv $mode.exact.sprof > $mode.exact.csv
done
"$BIN/sprof" --mrc --compare split.exact.sprof --format csv fused.exact.sprof > exact.csv
"$BIN/sprof" --mrc --compare split.sprof --format csv fused.sprof > sampled.csv
head -1 sampled.csv | grep -q '^cache_bytes,before,after,delta,before_low,before_high,after_low,after_high,' ||
    fail "--mrc --compare CSV header: $(head -1 sampled.csv)"
python3 - <<'PY' || fail "the compared curves against the exact simulators"
import csv
def rows(path): return {int(r["cache_bytes"]): r for r in csv.DictReader(open(path))}
split = {b: float(r["miss_ratio"]) for b, r in rows("split.exact.csv").items()}
fused = {b: float(r["miss_ratio"]) for b, r in rows("fused.exact.csv").items()}
exact, sampled = rows("exact.csv"), rows("sampled.csv")
assert sorted(exact) == sorted(split) == sorted(fused), "the exact comparison's sizes are not its runs'"
for b, r in exact.items():  # the exact runs' own curves, unchanged
    assert float(r["before"]) == split[b] and float(r["after"]) == fused[b], (b, r, split[b], fused[b])
    assert abs(float(r["delta"]) - (fused[b] - split[b])) < 1e-9, (b, r)
marked = {"fall": 0, "rise": 0}
for b in sorted(set(sampled) & set(split)):
    r, true_delta = sampled[b], fused[b] - split[b]
    before, after = float(r["before"]), float(r["after"])
    low = float(r["after_low"]) - float(r["before_high"])
    high = float(r["after_high"]) - float(r["before_low"])
    line = (f"{b} B: sampled {before:.4f} -> {after:.4f}, delta in [{low:+.4f}, {high:+.4f}] ({r['significant']}); "
            f"exact {split[b]:.4f} -> {fused[b]:.4f}")
    print(line)
    assert low <= true_delta <= high, line + ": the delta's interval misses the exact delta"
    if r["significant"] == "yes":  # a change marked is the exact curves' own, in their direction
        assert abs(true_delta) > 0.001 and (after - before) * true_delta > 0, line
        marked["fall" if true_delta < 0 else "rise"] += 1
assert marked["fall"] >= 5 and marked["rise"] >= 5, marked
print(f"sizes marked changed, as the exact curves change: {marked}")
PY
pass "--mrc --compare: the exact runs' curves as they are; sampled, the exact delta in every interval, changes marked as they are"

# The loops' misses in 1 MiB, per function: two_loops before only, one_loop
# after only; the fall against the exact runs' per-instruction counts.
for p in "" .exact; do
    "$BIN/sprof" --misses --by function --cache 1M --compare split$p.sprof --format csv fused$p.sprof > misses$p.csv
done
python3 - <<'PY' || fail "the loops' misses in 1 MiB"
import csv
def loops(path):
    rows = {r["location"]: r for r in csv.DictReader(open(path))}
    two, one = rows["two_loops"], rows["one_loop"]
    assert two["present"] == "before" and one["present"] == "after", (two["present"], one["present"])
    return float(two["misses_before"]), float(one["misses_after"])
(sb, sa), (eb, ea) = loops("misses.csv"), loops("misses.exact.csv")
print(f"misses in 1 MiB: two_loops {sb:.0f} -> one_loop {sa:.0f} sampled; {eb:.0f} -> {ea:.0f} exact")
assert ea < 0.6 * eb, "the exact runs' loops do not halve their misses"
assert abs((sb - sa) - (eb - ea)) <= 0.1 * (eb - ea), "the sampled fall is not the exact one within 10 %"
PY
pass "--misses --compare: the loops' misses in 1 MiB fall by the exact runs' count"

#!/usr/bin/env bash
# sprof --use and --data on layouts whose spatial use is known
# (tests/workloads/locality/known/layout.c, built with sprof-cc at -O1):
#  * array of structures: a loop reads one double of each 64-byte particle,
#    another writes one: 12.5 % of each line used, loads and stores alike;
#  * the particles again, a loop adding each one's y to its x: the load
#    that brings a line in, then a load and a store: 16 of 64 bytes (25 %),
#    24 bytes touched, so each used byte once more in two: temporal use 0.5;
#  * the first loop over a static array of particles: 12.5 % too, and
#    --data names the array by its symbol, with its size;
#  * structure of arrays: the same loops over one array each: 100 %;
#  * a tree of 3-double leaves, each malloc'ed with a gap after it, and the
#    same tree with its leaves packed in one array: the program computes the
#    spatial use its leaves' addresses give (30 % with glibc's chunks here,
#    100 % packed), and the packed one must rise by half the line or more.
# Every line leaves a 32 KiB cache between sweeps and, but in the update,
# nothing touches a byte twice while it stays: temporal use 0. Sampled runs
# (1 in 1000) are held to the known value within five standard errors of
# the tenures they rest on (the spread of one tenure's use is the layout's,
# which the program prints; AoS and SoA tenures all have the same use),
# exact runs to within 0.5 points, and sampled to exact within the same
# tolerance; temporal use within 0.01 in both.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock task-clock)

# run MODE N SAMPLED_ROUNDS EXACT_ROUNDS: MODE.{sampled,exact}.{out,use.csv,data.csv}
run() {
    local mode=$1 n=$2
    "$BIN/sprof_lib" -e "$events" --locality=1000 --locality-seed 3 -o "$mode.sampled.sprof" \
        "$WORK/loc_layout" "$mode" "$n" "$3" > "$mode.sampled.out"
    "$BIN/sprof_lib" -e "$events" --locality=exact -o "$mode.exact.sprof" \
        "$WORK/loc_layout" "$mode" "$n" "$4" > "$mode.exact.out"
    for m in sampled exact; do
        "$BIN/sprof" --use --by function --cache 32K --format csv "$mode.$m.sprof" > "$mode.$m.use.csv"
    done
    "$BIN/sprof" --data --cache 32K --format csv "$mode.sampled.sprof" > "$mode.sampled.data.csv"
}
run aos 65536 20 3
run aos-update 65536 20 3
run aos-static 65536 20 3
run soa 65536 20 3
run tree-gap 16384 40 4
run tree-packed 16384 40 4

python3 - "$HERE/../workloads/locality/known/layout.c" <<'PY' || fail "spatial or temporal use differs from the layout's"
import csv, math, re, sys

# The allocation sites the heap blocks are named by: the marked lines.
source = open(sys.argv[1]).read().splitlines()
marked = lambda mark: next(i + 1 for i, line in enumerate(source) if f"/* heap: {mark} */" in line)
site = {"aos": marked("the particles"), "soa": marked("the arrays")}

def rows(path):
    return list(csv.DictReader(open(path)))

def known(mode, run):
    """The layout's spatial use and its spread over lines (AoS, SoA: every line alike)."""
    if mode in ("aos", "aos-static"): return 12.5, 0.0
    if mode == "aos-update": return 25.0, 0.0
    if mode == "soa": return 100.0, 0.0
    out = dict(line.split() for line in open(f"{mode}.{run}.out"))
    return float(out["spatial_use"]), float(out["spatial_use_sd"])

temporal = {"aos-update": 0.5}  # every other layout: 0

checks = {"aos": [("aos_sum", "load"), ("aos_set", "store")], "aos-update": [("aos_update", "load")],
          "aos-static": [("aos_sum", "load")],
          "soa": [("soa_sum", "load"), ("soa_set", "store")],
          "tree-gap": [("leaf_sum", "load")], "tree-packed": [("leaf_sum", "load")]}
got = {}
for mode, statements in checks.items():
    use = {run: {(r["location"], r["access"]): r for r in rows(f"{mode}.{run}.use.csv")} for run in ("sampled", "exact")}
    for function, access in statements:
        s, e = use["sampled"][(function, access)], use["exact"][(function, access)]
        want_s, sd_s = known(mode, "sampled")
        want_e, _ = known(mode, "exact")
        tenures = int(s["tenures"])
        tolerance = 5 * sd_s / math.sqrt(tenures) + 1e-6
        spatial_s, spatial_e = float(s["spatial_use"]), float(e["spatial_use"])
        print(f"{mode} {function} ({access}): spatial use sampled {spatial_s:.2f} % over {tenures} tenures, "
              f"exact {spatial_e:.2f} % over {e['tenures']}, layout {want_s:.2f} % (± {tolerance:.2f}); "
              f"temporal {float(s['temporal_use']):.3f} / {float(e['temporal_use']):.3f}")
        assert tenures >= 100, f"{mode}: only {tenures} tenures followed"
        assert abs(spatial_s - want_s) <= tolerance, (mode, function, spatial_s, want_s)
        assert abs(spatial_e - want_e) <= 0.5, (mode, function, spatial_e, want_e)
        assert abs(spatial_s - spatial_e) <= tolerance + 0.5, (mode, function, spatial_s, spatial_e)
        want_t = temporal.get(mode, 0.0)
        assert abs(float(s["temporal_use"]) - want_t) <= 0.01 and abs(float(e["temporal_use"]) - want_t) <= 0.01, (s, e)
        got[(mode, function)] = (spatial_s, spatial_e)
for run in (0, 1):
    rise = got[("tree-packed", "leaf_sum")][run] - got[("tree-gap", "leaf_sum")][run]
    assert rise >= 50, f"packing the leaves raised their spatial use by {rise:.1f} points only"

# --data: the particles (one heap block, AoS; the static array) and the
# arrays (one allocation site, SoA) hold the sums' and sets' misses, with
# their spatial use; a heap block is named by its allocation's source line.
for mode, want in (("aos", 12.5), ("aos-static", 12.5), ("soa", 100.0)):
    data = rows(f"{mode}.sampled.data.csv")
    top = data[0]
    share = float(top["misses"]) / sum(float(r["misses"]) for r in data)
    print(f"{mode} --data: {top['data']} ({top['kind']}, {top['size']} bytes) {100 * share:.1f} % of the misses, "
          f"spatial use {float(top['spatial_use']):.2f} %")
    if mode == "aos-static":
        assert (top["kind"], top["data"], top["size"]) == ("static", "fixed_particles", str(65536 * 64)), top
    else:
        # heap@FILE:LINE, FILE the full path of the source the program was built from
        assert top["kind"] == "heap" and re.fullmatch(rf"heap@/.*/layout\.c:{site[mode]}", top["data"]), (top, site)
    assert share >= 0.95, share
    assert abs(float(top["spatial_use"]) - want) <= 1e-6, top
PY
pass "spatial use: AoS 12.5 % (25 % and temporal use 0.5 when updated), SoA 100 % (loads and stores), a gap-allocated tree as its layout gives and packed 100 %; sampled agrees with exact; --data names the blocks and the static array"

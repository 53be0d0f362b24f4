#!/usr/bin/env bash
# Every code address a locality record names has its source line: sprof_lib
# --locality on the sweep workload (built with sprof-cc, -O2 -g). The
# sampled and the trigger access of every reuse sample in sweep() are at the
# line of sweep()'s one load, found in the workload's source.
source "$(dirname "$0")/common.sh" "$1"
# The workloads find libsprof_access.so through their run path, which is the
# build tree's; a copy (the nobody run) has its own.
export LD_LIBRARY_PATH=$BUILD/lib
[ -x "$WORK/loc_sweep" ] || { echo "skipped: no sprof-cc build of the locality workloads"; exit 77; }
src=$HERE/../workloads/locality/sweep.c
load=$(grep -n 'sum += lines\[i \* kLine\]' "$src" | cut -d: -f1)
[ -n "$load" ] || fail "no load line in $src"
events=$(choose_events task-clock,page-faults task-clock,page-faults)
"$BIN/sprof_lib" -e "$events" -s 1ms --locality=1000 -o loc.sprof "$WORK/loc_sweep" -n 1000 -s 5000 -t 1 -o truth.txt
"$BUILD/tests/locality_dump" loc.sprof > loc.json
python3 - loc.json "$load" <<'PY' || fail "code addresses of locality records without their source line"
import json, sys
dump, load = json.load(open(sys.argv[1])), int(sys.argv[2])
refs = [s["sample"] for s in dump["samples"]] + [s["trigger"] for s in dump["samples"] if s["distance"] is not None]
missing = [r for r in refs if r["line"] is None]
print(f"{len(refs)} code addresses in reuse samples, {len(missing)} without a line row")
assert refs and not missing, missing[:3]
sweep = [r for r in refs if r["function"] == "sweep"]
wrong = [r for r in sweep if r["line"] != f"sweep.c:{load}"]
print(f"{len(sweep)} in sweep(), {len(wrong)} not at sweep.c:{load}")
assert sweep and not wrong, wrong[:3]
PY
pass "every sampled and trigger access of a reuse sample has its line; sweep()'s are at sweep.c:$load"

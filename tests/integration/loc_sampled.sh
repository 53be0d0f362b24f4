#!/usr/bin/env bash
# sprof_lib --locality on the sweep workload (built with sprof-cc), whose
# reuse distances are known: cyclic sweeps over N lines, one load per line,
# so every sampled distance in a thread's own stream is exactly N. Checked:
# the distances, the number of samples against accesses / RATE (binomial),
# that the samples' PCs resolve to sweep(), one stream per thread (two
# threads sweeping the same lines still see N), windows that add up, the
# memcpy traffic counted as unseen, and the event profile of the same run.
source "$(dirname "$0")/common.sh" "$1"
# The workloads find libsprof_access.so through their run path, which is the
# build tree's; a copy (the nobody run) has its own.
export LD_LIBRARY_PATH=$BUILD/lib
events=$(choose_events task-clock,page-faults task-clock,page-faults)

N=1000 SWEEPS=20000 RATE=1000
"$BIN/sprof_lib" -e "$events" -s 1ms --locality=$RATE -o one.sprof \
    "$WORK/loc_sweep" -n $N -s $SWEEPS -t 1 -c 1048576 -o truth1.txt
"$BUILD/tests/locality_dump" one.sprof > one.json
python3 "$HERE/check_locality.py" sampled one.json truth1.txt $RATE
pass "one thread: every sampled distance is $N, samples ≈ accesses/$RATE, PCs in sweep, memcpy counted"

# The event profile of the same run: sweep has the time.
"$BIN/sprof" --format csv one.sprof > flat.csv
python3 - flat.csv <<'PY' || fail "the event profile of the locality run has no time in sweep"
import csv, sys
rows = {r['function']: r for r in csv.DictReader(open(sys.argv[1]))}
assert 'sweep' in rows and float(rows['sweep']['samples']) > 0, rows.keys()
PY
pass "the same profile holds the event samples"

# What sprof tells of the unseen traffic: the memcpy's bytes read and written, in words.
"$BIN/sprof" --info --format json one.sprof > info.json
"$BIN/sprof" --mrc --format json one.sprof > mrc.json
python3 - info.json mrc.json truth1.txt <<'PY' || fail "sprof does not report the memcpy traffic the program made"
import json, sys
info = json.load(open(sys.argv[1]))["profiles"][0]["locality"]
mrc = json.load(open(sys.argv[2]))["locality"]
truth = dict(w for w in (l.split() for l in open(sys.argv[3])) if len(w) == 2)
want = 2 * int(truth["copy_bytes"]) // 8
assert info["mode"] == "sampled" and info["sample_period"] == 1000, info
assert info["unseen_accesses"] == mrc["unseen_accesses"] == want, (info, mrc, want)
assert abs(info["unseen_pct"] - 100 * want / (want + info["accesses"])) < 1e-9, info
print(f"unseen: {want} words, {info['unseen_pct']:.2f} % of all accesses, in --info and --mrc")
PY
pass "--info and --mrc report the memcpy traffic as unseen"

"$BIN/sprof_lib" -e "$events" --locality=$RATE -o two.sprof \
    "$WORK/loc_sweep" -n $N -s $((SWEEPS / 2)) -t 2 -S -o truth2.txt
"$BUILD/tests/locality_dump" two.sprof > two.json
python3 "$HERE/check_locality.py" sampled two.json truth2.txt $RATE
pass "two threads sweeping the same lines: each its own stream, every distance still $N"

# Without --locality an instrumented program runs as always and gives no locality records.
"$BIN/sprof_lib" -e "$events" -o none.sprof "$WORK/loc_sweep" -n 100 -s 10
"$BUILD/tests/locality_dump" none.sprof | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert not d["run"]["present"] and not d["samples"] and not d["windows"], d["run"]'
pass "without --locality: no locality records"

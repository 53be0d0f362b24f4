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

# memcmp and strcmp read up to and including the first difference (or
# the NUL, or the end): the program knows where that is in each call.
cat > compares.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char a[4096], b[4096];
int main(int argc, char **argv) {
    const size_t n = (size_t)atol(argv[1]); /* not a constant: gcc calls the functions */
    long words = 0, sum = 0;
    for (size_t i = 0; i < n; ++i) a[i] = b[i] = (char)('a' + i % 26);
    for (size_t k = 0; k < n; k += 37) { /* memcmp: the first difference at byte k */
        b[k] ^= 1;
        sum += memcmp(a, b, n) < 0;
        words += (2 * (long)(k + 1) + 7) / 8;
        b[k] ^= 1;
    }
    sum += memcmp(a, b, n); /* equal: all n bytes of both */
    words += (2 * (long)n + 7) / 8;
    a[n - 1] = b[n - 1] = 0;
    for (size_t k = 0; k + 1 < n; k += 41) { /* strcmp: the first difference at byte k, else the NUL */
        b[k] ^= 1;
        sum += strcmp(a, b) < 0;
        words += (2 * (long)(k + 1) + 7) / 8;
        b[k] ^= 1;
    }
    sum += strcmp(a, b);
    words += (2 * (long)n + 7) / 8;
    printf("%ld %ld\n", words, sum);
    return 0;
}
EOF
"$BIN/sprof-cc" -O2 compares.c -o compares
"$BIN/sprof_lib" -e "$events" --locality=$RATE -o compares.sprof ./compares 4000 > compares.out
"$BIN/sprof" --info --format json compares.sprof > compares.json
python3 - compares.json compares.out <<'PY' || fail "the bytes memcmp and strcmp read are not counted as unseen"
import json, sys
info = json.load(open(sys.argv[1]))["profiles"][0]["locality"]
want = int(open(sys.argv[2]).read().split()[0])
assert info["unseen_accesses"] == want, (info["unseen_accesses"], want)
print(f"memcmp and strcmp: {want} words read, as the program counts them")
PY
pass "memcmp and strcmp: the bytes up to the first difference counted as unseen"

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

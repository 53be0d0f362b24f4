#!/usr/bin/env bash
# The vDSO's functions are named as perf names them: a program that spends
# its time reading CLOCK_MONOTONIC (served in the vDSO, never entering the
# kernel), under sprof_lib and sprof_pt and under `perf record`. The share
# named __vdso_clock_gettime must agree with perf's within sampling error (3
# binomial standard deviations + 1 point), and the vDSO as a whole must hold
# most of the time for every tool. (Most of its code is a static function
# that neither perf nor sprof can name: "[unknown] [vdso]".)
source "$(dirname "$0")/common.sh" "$1"
command -v perf > /dev/null || { echo "skipped: no perf"; exit 77; }

cat > clock.c <<'C'
#include <stdio.h>
#include <time.h>
int main(void) {
    struct timespec t, c0, c1;
    long n = 0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    do {
        for (int i = 0; i < 100000; ++i) clock_gettime(CLOCK_MONOTONIC, &t), n++;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    } while ((c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9 < 2.0);
    printf("%ld\n", n);
    return 0;
}
C
cc -O2 clock.c -o clock
"$BIN/sprof_lib" -e task-clock -s 5ms -o lib.sprof ./clock > /dev/null
"$BIN/sprof_pt" -e task-clock -s 5ms -o pt.sprof ./clock > /dev/null
"$BIN/sprof" --format csv lib.sprof > lib.csv
"$BIN/sprof" --format csv pt.sprof > pt.csv
perf record -q -e cpu-clock -F 200 -o perf.data ./clock > /dev/null 2> perf.err
perf script -i perf.data -F ip,sym,dso 2> /dev/null > perf.txt
python3 - lib.csv pt.csv perf.txt <<'PY' || fail "the vDSO's functions are not named as perf names them"
import csv, math, sys
def shares_sprof(path):
    rows = list(csv.DictReader(open(path)))
    n = sum(int(r["samples"]) for r in rows)
    named = sum(int(r["samples"]) for r in rows if r["function"] == "__vdso_clock_gettime")
    vdso = sum(int(r["samples"]) for r in rows if r["object"] == "[vdso]")
    return n, named / n, vdso / n
perf = [l.split() for l in open(sys.argv[3]) if l.strip()]
n2 = len(perf)
named2 = sum(1 for w in perf if len(w) > 1 and w[1].split("+0x")[0] == "__vdso_clock_gettime") / n2
vdso2 = sum(1 for w in perf if w[-1] == "([vdso])") / n2
for tool, path in (("sprof_lib", sys.argv[1]), ("sprof_pt", sys.argv[2])):
    n1, named1, vdso1 = shares_sprof(path)
    p = (named1 + named2) / 2
    tol = 3 * math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2)) + 0.01
    print(f"{tool}: __vdso_clock_gettime {100 * named1:.1f} % of {n1} samples, perf {100 * named2:.1f} % of {n2} "
          f"(tolerance {100 * tol:.1f}); the vDSO {100 * vdso1:.1f} %, perf {100 * vdso2:.1f} %")
    assert named1 > 0, f"{tool} names no sample __vdso_clock_gettime"
    assert abs(named1 - named2) <= tol, f"{tool}: {named1:.3f} vs perf {named2:.3f}"
    assert vdso1 >= 0.5 and vdso2 >= 0.5, (vdso1, vdso2)
PY
pass "the vDSO's functions are named as perf names them"

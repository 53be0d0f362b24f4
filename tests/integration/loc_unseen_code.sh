#!/usr/bin/env bash
# Code the compiler did not instrument is named, with its share of the CPU
# time: a program built with sprof-cc spends part of its time in a shared
# library built with plain cc (as Debian's bzip2 compresses in libbz2.so).
# `sprof --mrc` must name that library with the share of CPU time the
# program measured for its calls, and must not name the program itself.
# Nor the libraries sprof's runtime links: sampled at 1 in 100, the
# runtime drew each gap with libm's log1p, and libm.so.6 was named with 9 %
# of the time of a program that never calls it; only libplain.so may be.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh

cat > plain.c <<'C'
void strided(volatile char *p, long lines, long rounds) {
    for (long r = 0; r < rounds; ++r)
        for (long i = 0; i < lines; ++i) p[i * 64]++;
}
C
cat > main.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void strided(volatile char *p, long lines, long rounds);
static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) static void own(volatile char *p, long lines, long rounds) {
    for (long r = 0; r < rounds; ++r)
        for (long i = 0; i < lines; ++i) p[i * 64]++;
}
int main(void) {
    const long lines = 4096;
    volatile char *p = calloc(lines, 64);
    double in_lib = 0, in_own = 0;
    for (int k = 0; k < 4; ++k) {  /* interleaved: the machine's load hits both alike */
        double t = cpu();
        strided(p, lines, 40000);
        in_lib += cpu() - t;
        t = cpu();
        own(p, lines, 4000);
        in_own += cpu() - t;
    }
    printf("%.6f %.6f\n", in_lib, in_own);
    return 0;
}
C
cc -O1 -shared -fPIC plain.c -o libplain.so
"$BIN/sprof-cc" -O1 main.c -L. -lplain -Wl,-rpath,"$PWD" -o main
"$BIN/sprof_lib" -e task-clock --locality -o run.sprof ./main > truth.txt
"$BIN/sprof" --mrc --format json run.sprof > mrc.json
"$BIN/sprof" --mrc run.sprof > mrc.txt
python3 - mrc.json truth.txt <<'PY' || fail "the uninstrumented library is not reported as it should be"
import json, os, sys
objects = json.load(open(sys.argv[1]))["locality"]["uninstrumented_objects"]
in_lib, in_own = map(float, open(sys.argv[2]).read().split())
truth = in_lib / (in_lib + in_own)
names = [os.path.basename(o["object"]) for o in objects]
listed = ", ".join(f"{n} {o['time_share']:.3f}" for n, o in zip(names, objects))
print(f"uninstrumented: {listed}; "
      f"the program measured {truth:.3f} of its time in libplain.so")
assert "main" not in names, "the instrumented program itself is reported as uninstrumented"
assert "libplain.so" in names, "libplain.so is not reported"
share = objects[names.index("libplain.so")]["time_share"]
# The program's share of its whole run; the profile's share adds start-up and exit (a few ms).
assert abs(share - truth) <= 0.05, f"libplain.so's share {share:.3f}, the program measured {truth:.3f}"
PY
grep -q "libplain.so took .* of the CPU time, but none of its accesses were seen" mrc.txt ||
    fail "the text report does not name libplain.so: $(head -8 mrc.txt)"
pass "code not built with sprof-cc is named with its share of the time"

"$BIN/sprof_lib" -e task-clock --locality=100 -o dense.sprof ./main > /dev/null
"$BIN/sprof" --mrc --format json dense.sprof > dense.json
python3 - dense.json <<'PY' || fail "an object the program does not run is named as unseen code"
import json, os, sys
objects = json.load(open(sys.argv[1]))["locality"]["uninstrumented_objects"]
listed = {os.path.basename(o["object"]): round(o["time_share"], 3) for o in objects}
print(f"1 in 100: uninstrumented {listed}")
assert set(listed) <= {"libplain.so"}, listed
PY
pass "the runtime's own work (its sampling at 1 in 100) is not charged to the libraries it links"

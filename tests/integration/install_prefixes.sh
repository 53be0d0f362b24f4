# A relocatable install: installed to two prefixes (cmake --install --prefix),
# and once more under DESTDIR, every tool finds its companions (the runtime,
# libsprof_access.so, the gcc plugin, sprof-cc's specs file) from its own
# place. Nothing installed names the build or source tree; the tools then run
# with both hidden (a tmpfs over each, in a mount namespace of their own, when
# that can be had): sprof_lib and sprof_pt on the alternate workload (its
# time shares against its own accounting), preprof's control file used by
# sprof_lib, sprof on each profile, sprof-cc building a program whose
# locality sprof_lib --locality collects, and --version of each; as root, the
# same again as the user nobody.
source "$(dirname "$0")/common.sh" "$1"
SRC=$(cd "$HERE/../.." && pwd)
command -v cc > /dev/null || { echo "skipped: no C compiler"; exit 77; }
[ -x "$BIN/sprof-cc" ] || { echo "skipped: sprof-cc not built (needs gcc)"; exit 77; }
chmod 755 "$SCRATCH"  # nobody runs the installed tools from here

for prefix in "$SCRATCH/one" "$SCRATCH/two/usr"; do
    cmake --install "$BUILD" --prefix "$prefix" > /dev/null
done
DESTDIR=$SCRATCH/staged cmake --install "$BUILD" --prefix /opt/sprof > /dev/null

# No installed file names where it was built: no script, specs file, man
# page or completion, and no binary's RPATH/RUNPATH (their debug information
# names the source files, as every -g build's does: it is not looked up).
names_tree() {  # FILE: prints FILE when it names the build or source tree
    if [ "$(head -c 4 "$1")" = $'\x7fELF' ]; then
        readelf -d "$1" | grep -E 'RPATH|RUNPATH' | grep -qF -e "$BUILD" -e "$SRC/" && echo "$1 (its RPATH)"
    else
        grep -qaF -e "$BUILD" -e "$SRC/" "$1" && echo "$1"
    fi
    return 0
}
for tree in "$SCRATCH/one" "$SCRATCH/two" "$SCRATCH/staged"; do
    found=$(find "$tree" -type f | while read -r f; do names_tree "$f"; done)
    [ -z "$found" ] || fail "installed files name the build or source tree: $found"
done
# Under DESTDIR the specs file names the prefix the files will have.
grep -q -- "/opt/sprof/lib/libsprof_access.so" "$SCRATCH/staged/opt/sprof/share/sprof/sprof.specs" ||
    fail "the staged specs file does not name /opt/sprof: $(cat "$SCRATCH/staged/opt/sprof/share/sprof/sprof.specs")"
! grep -q "$SCRATCH/staged" "$SCRATCH/staged/opt/sprof/share/sprof/sprof.specs" || fail "the staged specs file names DESTDIR"
for tool in sprof sprof_lib sprof_pt preprof sprof-cc sprof-c++; do
    [ -f "$SCRATCH/one/share/man/man1/$tool.1" ] || fail "no man page of $tool installed"
    [ -f "$SCRATCH/one/share/bash-completion/completions/$tool" ] || fail "no bash completion of $tool installed"
done
pass "installed to two prefixes and under DESTDIR; nothing names the build tree"

# What the runs need, outside both trees.
mkdir -p "$SCRATCH/kit"
cp "$WORK/alternate" "$HERE/check_alternate.py" "$SCRATCH/kit/"
cat > "$SCRATCH/kit/stride.c" <<'C'
#include <stdlib.h>
/* Reads one int of every 64-byte line of 2 MiB, 16 times over: between two
 * reads of a line come all the other 32767 lines, so an LRU cache smaller
 * than 2 MiB misses every read, and a larger one only the first pass's. */
int main(void) {
    const size_t lines = 32768, ints_per_line = 16;
    volatile int *a = calloc(lines * ints_per_line, sizeof *a);
    long sum = 0;
    for (int pass = 0; pass < 16; ++pass)
        for (size_t i = 0; i < lines; ++i) sum += a[i * ints_per_line];
    return sum == 42;
}
C
chmod -R a+rX "$SCRATCH/kit"
events=task-clock,page-faults

# The runs, from PREFIX, in DIR (writable by whoever runs them).
cat > "$SCRATCH/kit/run.sh" <<'RUN'
set -euo pipefail
prefix=$1 dir=$2 events=$3 judge=$4 kit=$(dirname "$0")
seconds=5; [ "$judge" = accuracy ] || seconds=1
fail() { echo "FAIL ($prefix, $(id -un)): $*" >&2; exit 1; }
cd "$dir"
export PATH=$prefix/bin:/usr/bin:/bin
for tool in sprof sprof_lib sprof_pt preprof sprof-cc sprof-c++; do
    v=$("$tool" --version | sed -n 1p)
    case $v in "$tool "[0-9]*) ;; *) fail "$tool --version: '$v'" ;; esac
done
cp "$kit/alternate" .
# Judged as lib_alternate and pt_alternate judge them (5 s), in the first
# prefix; in the second, heavy (3× light's time) must lead, then light.
for collector in sprof_lib sprof_pt; do
    "$collector" -q -e "$events" -o "$collector.sprof" ./alternate -t "$seconds" -m 50 -o "truth-$collector.txt"
    sprof --format csv "$collector.sprof" > "$collector.csv"
    if [ "$judge" = accuracy ]; then
        python3 "$kit/check_alternate.py" "$collector.csv" "truth-$collector.txt" "$collector from $prefix"
    else
        top=$(python3 -c 'import csv, sys; print(" ".join(r["function"] for r in list(csv.DictReader(open(sys.argv[1])))[:2]))' \
              "$collector.csv")
        [ "$top" = "heavy light" ] || fail "$collector: the top functions are '$top', not 'heavy light'"
    fi
done
preprof -e "$events" ./alternate > /dev/null
[ -s alternate.prf ] || fail "preprof wrote no control file"
sprof_lib -q -o prf.sprof ./alternate -t 0.5 -m 20 -o truth-prf.txt
# Its events are the control file's, not the default set of four.
got=$(sprof --info --format json prf.sprof |
      python3 -c 'import json, sys; print(",".join(e["name"] for e in json.load(sys.stdin)["profiles"][0]["events"]))')
[ "$got" = "$events" ] || fail "the control file was not used: events $got, not $events"
sprof-cc -O2 -g "$kit/stride.c" -o stride
ldd ./stride > libs.txt
grep -qF "$prefix/lib/libsprof_access.so" libs.txt || fail "stride does not load $prefix's libsprof_access.so: $(cat libs.txt)"
sprof_lib -q --locality=exact -o loc.sprof ./stride
sprof --mrc --format csv loc.sprof > mrc.csv
python3 - mrc.csv <<'PY' || fail "the locality of stride is wrong: $(cat mrc.csv)"
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
curve = {int(r["cache_bytes"]): float(r["miss_ratio"]) for r in rows}
# A reuse comes after all 32,767 other lines (2 MiB): an LRU cache below that
# misses every read; above it, only the first pass's (1 in 16).
small = {b: m for b, m in curve.items() if b <= 1 << 20}
large = {b: m for b, m in curve.items() if 4 << 20 <= b <= 64 << 20}
assert small and large, curve
assert all(m >= 0.99 for m in small.values()), small
assert all(abs(m - 1 / 16) < 0.005 for m in large.values()), large
print(f"stride: miss ratio {min(small.values()):.4f}+ up to 1 MiB, {max(large.values()):.4f} from 4 MiB (1/16)")
PY
echo "ok: every tool from $prefix as $(id -un)"
RUN

# run_hidden CMD…: CMD with the build and source trees hidden, where a mount namespace can be had.
run_hidden() {
    if unshare --mount true 2> /dev/null; then
        unshare --mount bash -c 'mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && shift 2 && exec "$@"' \
            hide "$BUILD" "$SRC" "$@"
    else
        echo "note: no mount namespace here: the trees stay visible (nothing installed names them, checked above)"
        "$@"
    fi
}
judge=accuracy
for prefix in "$SCRATCH/one" "$SCRATCH/two/usr"; do
    mkdir -p "$SCRATCH/run-$(id -u)-${prefix##*/}"
    run_hidden bash "$SCRATCH/kit/run.sh" "$prefix" "$SCRATCH/run-$(id -u)-${prefix##*/}" "$events" "$judge" ||
        fail "the tools installed in $prefix"
    if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
        dir=$SCRATCH/run-nobody-${prefix##*/}
        mkdir -p "$dir" && chown 65534:65534 "$dir"
        run_hidden env HOME="$dir" setpriv --reuid=65534 --regid=65534 --clear-groups \
            bash "$SCRATCH/kit/run.sh" "$prefix" "$dir" "$events" "$judge" ||
            fail "the tools installed in $prefix, as nobody"
    fi
    judge=order
done
pass "every tool runs from either prefix with the build tree hidden"

#!/usr/bin/env bash
# The fast path that sprof-cc's gcc plugin inlines into a program, held
# against the hooks it stands for. The accesses workload makes a known
# stream (per round: 4096 8-byte loads of `data`, 4096 8-byte stores, in
# each of 256 96-byte records three loads and a store that the plugin probes
# as one run, 256 unaligned 4-byte loads, inline but for those that straddle
# two lines, one 4-byte volatile load); libhook_logger.so, preloaded like
# the runtime, arms the thread's HotPath in one way or another and logs
# every hook call (the access's number as the hooks count it, address,
# size, kind, PC):
#  * every access an event (exact mode's setting): every access reaches its
#    hook, numbered 1, 2, 3 …, with its size and kind, its PC in kernel();
#  * disarmed: no hook is called, and the inline code counted the same
#    number of accesses as the hooks did;
#  * the K-th access an event, K a store of a group, a load inside a run and
#    an unaligned load: the first access the hooks send to the slow path is
#    access K, the same access as in the run above;
#  * one filter granule in 8 marked, scattered: every access to a marked
#    granule reaches its hook (the inline index is filter_bucket's), and
#    any other only as part of a run whose probe covers a marked granule;
#  * a library built with sprof-cc (at every optimisation level) and
#    dlopen'ed by a program built without it runs, and its accesses reach
#    the hooks too, counted inline as the hooks count them;
#  * the runtime's exact mode counts the same accesses.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
grep -q -- '-fplugin=' "$BUILD/share/sprof/sprof.specs" ||
    { echo "skipped: sprof-cc was built without its gcc plugin (no gcc plugin headers)"; exit 77; }
PROG=$WORK/loc_accesses
LOGGER=$WORK/libhook_logger.so
ROUNDS=3

# The fast path is in kernel() itself: thread-local (%fs) loads and stores.
objdump -d --no-show-raw-insn "$PROG" | awk '/<kernel>:/,/^$/' > kernel.asm
[ "$(grep -c '%fs:' kernel.asm)" -ge 3 ] || fail "kernel() has no inline fast path: $(head -40 kernel.asm)"
pass "kernel() holds the inline fast path ($(grep -c '%fs:' kernel.asm) thread-local accesses)"

"$PROG" -r $ROUNDS > alone.txt || fail "the instrumented program failed on its own"
logged() {  # logged MODE LOG: a run with the hooks' stand-in
    HOOK_MODE=$1 HOOK_LOG=$2 LD_PRELOAD=$LOGGER "$PROG" -r $ROUNDS -o "$2.truth" > "$2.out"
    cmp -s alone.txt "$2.out" || fail "$1: the program printed $(cat "$2.out"), on its own $(cat alone.txt)"
}
logged every every.log
logged disarmed disarmed.log
read -r K R U < <(python3 - every.log every.log.truth <<'PY'
import sys
# K: the 5,004th store to data, deep inside kernel()'s loops, the 4th of a
# group of 8. R: the 300th load of field 5 of a record, the second access of
# its run. U: the 300th unaligned load of bytes that lies in one line.
log, truth = sys.argv[1:]
t = {l.split()[0]: l.split()[1] for l in open(truth)}
data, recs, b = int(t['data'], 16), int(t['recs'], 16), int(t['bytes'], 16)
calls = [l.split() for l in open(log) if l.split()[0] != 'end']
stores = [int(c[0]) for c in calls if c[3] == '1' and data <= int(c[1], 16) < data + 8 * 4096]
fifth = [int(c[0]) for c in calls if c[3] == '0' and recs <= int(c[1], 16) < recs + 96 * int(t['rec_count'])
         and (int(c[1], 16) - recs) % 96 == 40]
whole = [int(c[0]) for c in calls if b <= int(c[1], 16) < b + 256 * 13 + 4 and c[2] == '4']
print(stores[5003], fifth[299], whole[299])
PY
)
logged "at:$K" at.log
logged "at:$R" at-run.log
logged "at:$U" at-range.log
logged scattered buckets.log
kernel_size=$(nm -S "$PROG" | awk '$4 == "kernel" {print $2}')
python3 - "$ROUNDS" "$K" "$R" "$U" "$kernel_size" <<'PY' || fail "the inline fast path and the hooks disagree (above)"
import sys
rounds, K, R, U = (int(a) for a in sys.argv[1:5])
kernel_size = int(sys.argv[5], 16)
failures = []
def check(ok, what):
    if not ok:
        failures.append(what)

def load(name):
    t = {l.split()[0]: l.split()[1] for l in open(name + '.truth')}
    calls, end = [], None
    for line in open(name):
        w = line.split()
        if w[0] == 'end':
            end = int(w[1])
        else:
            calls.append((int(w[0]), int(w[1], 16), int(w[2]), w[3] == '1', int(w[4], 16), w[5] == '1'))
    return calls, end, {k: int(v, 16) if k in ('data', 'recs', 'bytes', 'flag', 'kernel') else int(v)
                        for k, v in t.items()}

def in_recs(a, t):
    return t['recs'] <= a < t['recs'] + 96 * t['rec_count']

def in_bytes(a, t):
    return t['bytes'] <= a < t['bytes'] + 256 * 13 + 4

# The unaligned loads of a round: at bytes + 13k + 1, one access per 64-byte line they touch.
UNALIGNED = [13 * k + 1 for k in range(256)]
straddles = lambda offset, t: (t['bytes'] + offset) // 64 != (t['bytes'] + offset + 3) // 64
start_of = lambda a, t: next(t['bytes'] + o for o in UNALIGNED if t['bytes'] + o <= a < t['bytes'] + o + 4)

def kinds(calls, t):
    """(data loads, data stores, flag loads, record loads, record stores, unaligned loads' line parts,
    their bytes) with the right sizes and fields, PCs in kernel()."""
    data, out = t['data'], [0, 0, 0, 0, 0, 0, 0]
    for n, a, size, write, pc, slow in calls:
        if data <= a < data + 8 * t['elements']:
            out[1 if write else 0] += size == 8
        elif a == t['flag']:
            out[2] += size == 4 and not write
        elif in_recs(a, t):
            field = (a - t['recs']) % 96 // 8
            out[4 if write else 3] += size == 8 and field == (3 if write else field) and field in (0, 5, 11, 3)
        elif in_bytes(a, t):
            out[5] += not write
            out[6] += size
        else:
            continue
        check(t['kernel'] <= pc < t['kernel'] + kernel_size,
              f"access {n} to {a:#x}: PC {pc:#x} outside kernel() at {t['kernel']:#x}+{kernel_size:#x}")
    return out

calls, total, t = load('every.log')
expected = [rounds * t['elements'], rounds * t['elements'], rounds, 3 * rounds * t['rec_count'], rounds * t['rec_count'],
            rounds * sum(1 + straddles(o, t) for o in UNALIGNED), rounds * 4 * len(UNALIGNED)]
check(all(c[5] for c in calls), "every: a hook call that the hooks' own test does not send to the slow path")
check([c[0] for c in calls] == list(range(1, len(calls) + 1)), "every: the accesses are not numbered 1, 2, 3 …")
check(total == len(calls), f"every: {len(calls)} hook calls, the thread counted {total}")
check(kinds(calls, t) == expected, f"every: (loads, stores, flag loads) {kinds(calls, t)}, expected {expected}")
by_number = {c[0]: c for c in calls}
every_total, every_data = total, t['data']

# Disarmed, only the unaligned loads that straddle two lines reach their hook (which counts them).
calls, total, t = load('disarmed.log')
check(all(in_bytes(c[1], t) and straddles(start_of(c[1], t) - t['bytes'], t) and not c[5] for c in calls)
      and len(calls) == rounds * 2 * sum(straddles(o, t) for o in UNALIGNED),
      f"disarmed: {len(calls)} hook calls, expected the straddling unaligned loads' alone")
check(total == every_total, f"disarmed: the inline code counted {total} accesses, the hooks {every_total}")

# The inline code may call the hooks of a group of accesses that holds the
# event (the accesses before it, and those of its run after it, which the
# hooks' own test lets pass); the hooks' own test picks the event's access alone.
every_kernel = load('every.log')[2]['kernel']
def at(log, K, base_of):
    calls, total, t = load(log)
    want = by_number[K]
    early = [c for c in calls if not c[5]]
    calls = [c for c in calls if c[5]]
    check(len(calls) == 1 and calls[0][0] == K, f"{log}: slow accesses {calls[:3]}…, expected access {K} alone")
    # Beyond the event: the rest of its run, and unaligned loads that straddle lines (the hook counts those).
    check(all(c[0] < K or (c[0] <= K + 3 and in_recs(c[1], t)) or in_bytes(c[1], t) for c in early),
          f"{log}: hook calls beyond the event's run that it did not need: {[c for c in early if c[0] > K][:3]}")
    if calls:
        n, a, size, write, pc, slow = calls[0]
        check((a - base_of(t), size, write, pc - t['kernel']) == (want[1] - base_of(load('every.log')[2]), want[2],
                                                                   want[3], want[4] - every_kernel),
              f"{log}: the hook saw {calls[0]}, the {K}-th access of the full run was {want}")
    check(total == every_total, f"{log}: {total} accesses counted, {every_total} in the full run")
at('at.log', K, lambda t: t['data'])
at('at-run.log', R, lambda t: t['recs'])
at('at-range.log', U, lambda t: t['bytes'])

# Granules as sprof::filter_bucket finds them (4096 of 64 bytes).
calls, total, t = load('buckets.log')
granule = lambda a: (a >> 6) % 4096
marked = lambda a: ((granule(a) * 2654435761) % 2**32) >> 29 == 0
check(all(c[5] == marked(c[1]) for c in calls), "buckets: the hooks' own test and the marked granules disagree")
# A record's run is probed at once: 4 granules from its first byte's.
run_marked = lambda a: any(marked(((a - t['recs']) // 96 * 96 + t['recs']) + 64 * g) for g in range(4))
# An unaligned load reaches its hook when it straddles two lines, or its first byte's granule is marked.
range_called = lambda a: straddles(start_of(a, t) - t['bytes'], t) or marked(start_of(a, t))
check(all(marked(c[1]) or (in_recs(c[1], t) and run_marked(c[1])) or (in_bytes(c[1], t) and range_called(c[1]))
          for c in calls),
      "buckets: a hook call for an access of no marked granule, outside a run that covers one")
lines = [t['data'] + 64 * i for i in range(t['elements'] // 8)]
want_data = [sum(8 * rounds for l in lines if marked(l))] * 2
recs = [t['recs'] + 96 * ((k * 5) % t['rec_count']) for k in range(t['rec_count'])]
want_recs = [rounds * sum(marked(r + 8 * f) for r in recs for f in (0, 5, 11)), rounds * sum(marked(r + 24) for r in recs)]
# Every line part of an unaligned load whose granule is marked reaches the hooks, marked.
parts = [p for o in UNALIGNED for p in ([t['bytes'] + o] + ([(t['bytes'] + o + 3) // 64 * 64] if straddles(o, t) else []))]
want_parts = rounds * sum(marked(p) for p in parts)
got = kinds([c for c in calls if c[5]], t)
check(got[:2] == want_data, f"buckets: (loads, stores) of marked data lines {got[:2]}, expected {want_data}")
check(got[2] == (rounds if marked(t['flag']) else 0), f"buckets: {got[2]} flag loads reached the hooks")
check(got[3:5] == want_recs, f"buckets: (loads, stores) of marked record granules {got[3:5]}, expected {want_recs}")
check(got[5] == want_parts, f"buckets: {got[5]} parts of unaligned loads of marked granules, expected {want_parts}")
check(total == every_total, f"buckets: {total} accesses counted, {every_total} in the full run")
for f in failures:
    print('FAIL:', f)
print(f"{every_total} accesses; accesses {K}, {R} and {U} events; {want_data[0]} data loads, {want_recs[0]} record "
      f"loads and {want_parts} unaligned load parts of marked granules")
sys.exit(1 if failures else 0)
PY
pass "every access, none, the K-th, the marked lines: the hooks see exactly what the inline code lets through"

# A library built with sprof-cc, dlopen'ed by a program built without it.
cat > touch.c <<'EOF'
long cells[1024];
long touch(long rounds) {
    long s = 0;
    for (long r = 0; r < rounds; ++r)
        for (int i = 0; i < 1024; ++i) s += cells[i] += i;
    return s;
}
EOF
cat > opener.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    long (*touch)(long) = (long (*)(long))dlsym(lib, "touch");
    printf("%ld\n", touch(2));
    return 0;
}
EOF
gcc -O2 opener.c -o opener -ldl
calls() { grep -vc '^end' "$1" || true; }
counted() { awk '$1 == "end" {print $2}' "$1"; }
for level in -O0 -O1 -Og -O2 -O3 -Os; do
    "$BIN/sprof-cc" $level -fPIC -shared touch.c -o libtouch.so
    [ "$(./opener ./libtouch.so)" = 1571328 ] || fail "$level: the dlopen'ed library computed $(./opener ./libtouch.so)"
    HOOK_MODE=every HOOK_LOG=dl-every.log LD_PRELOAD=$LOGGER ./opener ./libtouch.so > /dev/null
    HOOK_MODE=disarmed HOOK_LOG=dl-none.log LD_PRELOAD=$LOGGER ./opener ./libtouch.so > /dev/null
    # Per round and cell a load and a store (more at -O0, where locals live in memory).
    [ "$(calls dl-every.log)" -ge 4096 ] && [ "$(calls dl-every.log)" = "$(counted dl-every.log)" ] ||
        fail "$level: $(calls dl-every.log) hook calls, $(counted dl-every.log) accesses counted, at least 4096 made"
    [ "$(calls dl-none.log)" = 0 ] && [ "$(counted dl-none.log)" = "$(counted dl-every.log)" ] ||
        fail "$level, disarmed: $(calls dl-none.log) hook calls, $(counted dl-none.log) accesses counted inline"
    if [ $level = -O2 ]; then [ "$(calls dl-every.log)" = 4096 ] || fail "-O2: $(calls dl-every.log) hook calls, not 4096"; fi
done
pass "a library built with sprof-cc at -O0 … -Os runs dlopen'ed by a plain program; the inline code counts what the hooks count"

# The runtime's exact mode counts every access the hooks counted (the same
# arguments: main() reads optarg once per option).
events=$(choose_events task-clock task-clock)
"$BIN/sprof_lib" -e "$events" --locality=exact -o exact.sprof "$PROG" -r $ROUNDS -o exact.truth > /dev/null
"$BUILD/tests/locality_dump" exact.sprof > exact.json
total=$(awk '$1 == "end" {print $2}' every.log)
python3 - exact.json "$total" <<'PY' || fail "exact mode did not count the accesses the hooks counted"
import json, sys
dump, total = json.load(open(sys.argv[1])), int(sys.argv[2])
counted = [c['accesses'] for c in dump['exact']]
print(f"exact mode: {counted} accesses, the hooks {total}")
sys.exit(0 if counted == [total] else 1)
PY
pass "exact mode: every one of the $total accesses simulated"

# The runtime sees the very accesses it saw before the plugin: each
# workload built with gcc's instrumentation alone (loc_NAME_calls, a hook
# call per access) and with the plugin (loc_NAME), run with the same input,
# makes the same stream. Exact mode: the same accesses per thread and per
# function (the sweep's is known: check_locality.py in loc_exact.sh), and
# the same misses per function. Sampled mode, one in 50 with one seed: the
# same sample points, so the same windows and the same samples (distance,
# size, kinds, sample and trigger function). Both binaries run under one
# name of one length, with address-space randomisation off: the stack's
# offset in its line would move the lines of main()'s locals from run to
# run. With two worker threads only the accesses are compared: which of the
# two starts first (and so takes which sample points) is the scheduler's.
python3 - "$BIN/sprof_lib" "$BUILD/tests/locality_dump" "$WORK" "$events" <<'PY' || fail "the plugin changed the stream the runtime sees (above)"
import json, os, shutil, subprocess, sys
lib, dump, work, events = sys.argv[1:]
for d in ("c", "i"):
    os.makedirs(d, exist_ok=True)
runs = [("accesses", ["-r", "3"]), ("sweep", ["-n", "300", "-s", "20"]), ("sweep", ["-n", "300", "-s", "20", "-t", "2"]),
        ("mix", ["-n", "4096", "-l", "200000"]),
        ("kernels", ["-k", "matmul", "-n", "48"]), ("kernels", ["-k", "blocked", "-n", "48", "-b", "8"]),
        ("kernels", ["-k", "chase", "-n", "3000", "-r", "4"]), ("kernels", ["-k", "hash", "-n", "3000"]),
        ("kernels", ["-k", "random", "-n", "3000", "-r", "4"])]
failures = []

def collect(binary, args, mode):
    prog = ("c" if binary.endswith("_calls") else "i") + "/prog"
    shutil.copy(f"{work}/{binary}", prog)
    subprocess.run(["setarch", os.uname().machine, "-R", lib, "-e", events, mode, "--locality-seed=7",
                    "-o", "run.sprof", prog, *args], check=True, stdout=subprocess.DEVNULL)
    return json.loads(subprocess.run([dump, "run.sprof"], check=True, capture_output=True, text=True).stdout)

def exact(d, threads):
    return (sorted(c["accesses"] for c in d["exact"]),
            sorted((f["function"], f["accesses"], f["lru_misses"] if threads == 1 else None)
                   for f in d["exact_functions"]))

def sampled(d):
    key = lambda s: (s["distance"] if s["distance"] is not None else -1, s["size"], s["sample_write"],
                     s["trigger_write"], s["sample"]["function"], s["trigger"]["function"])
    return (sorted((w["window"], w["accesses"], w["samples"]) for w in d["windows"]), sorted(map(key, d["samples"])))

for name, args in runs:
    what, threads = f"{name} {' '.join(args)}", int(args[args.index("-t") + 1]) if "-t" in args else 1
    calls, inline = (collect(b, args, "--locality=exact") for b in (f"loc_{name}_calls", f"loc_{name}"))
    if exact(calls, threads) != exact(inline, threads) or not calls["exact"]:
        failures.append(f"{what}, exact: calls {exact(calls, threads)}, inline {exact(inline, threads)}")
    if threads > 1:
        print(f"{what}: {sum(c['accesses'] for c in inline['exact'])} accesses: same with calls")
        continue
    calls, inline = (collect(b, args, "--locality=50") for b in (f"loc_{name}_calls", f"loc_{name}"))
    if sampled(calls) != sampled(inline) or not calls["samples"]:
        failures.append(f"{what}, sampled: {len(calls['samples'])} samples with calls, {len(inline['samples'])} "
                        f"inline; windows {sampled(calls)[0][:2]} / {sampled(inline)[0][:2]}")
    print(f"{what}: {sum(w['accesses'] for w in inline['windows'])} accesses, {len(inline['samples'])} samples: same with calls")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
PY
pass "exact and sampled (one seed) runs of every locality workload: the same accesses, samples and distances with calls and inline"

#!/usr/bin/env bash
# The locality detail of a program whose data and accesses are known: three
# arrays of 4096 doubles (32 KiB, 512 lines) — a static one, a heap block
# from make_heap(), a local array of on_stack() — each written once, then
# walked R, 2R and 3R times by walk(), one 8-byte load per element.
#  * Sampled: each sample is named by the data object it lay in, and the
#    samples' shares per object are the shares of accesses (binomial); the
#    heap object's site is the allocation call in make_heap; the tenures of the
#    lines walk() brings in used all 64 bytes (8 loads a line, in a row).
#  * Exact, hand-computed: in a 32 KiB LRU cache (512 lines), walk()'s first
#    round over the static and the heap array misses all 512 lines each (the
#    other array was touched since), the rounds after hit. gcc does not
#    instrument on_stack()'s stores into its own array, so the walk over it
#    starts with 512 cold misses, in every cache. 1536 misses at 32 KiB, each
#    line's tenure with all 64 bytes used, and every load of walk() in one
#    of them: 8 bytes a load read in all (every access of a tenure counted,
#    however many); at 1 MiB the 512 cold ones.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh

cat > data.c <<'C'
#include <stdio.h>
#include <stdlib.h>
enum { N = 4096 };
double table[N] __attribute__((aligned(64)));  /* whole lines, each array */
__attribute__((noinline)) double *make_heap(void) { return aligned_alloc(64, N * sizeof(double)); }
__attribute__((noinline)) double walk(const double *a, long rounds) {
    double s = 0;
    for (long r = 0; r < rounds; ++r)
        for (long i = 0; i < N; ++i) s += a[i];
    return s;
}
__attribute__((noinline)) double on_stack(long rounds) {
    double local[N] __attribute__((aligned(64)));
    for (long i = 0; i < N; ++i) local[i] = (double)i;
    return walk(local, rounds);
}
int main(void) {
    double *heap = make_heap();
    for (long i = 0; i < N; ++i) table[i] = (double)i;
    for (long i = 0; i < N; ++i) heap[i] = (double)i;
    const long R = atol(getenv("ROUNDS"));
    double s = walk(table, R) + walk(heap, 2 * R) + on_stack(3 * R);
    printf("%g\n", s);
    free(heap);
    return 0;
}
C
# -O1: no vector loads, so each element is one access, as counted above.
"$BIN/sprof-cc" -O1 -g data.c -o data
# Sampled: 1 in 1000 of 7,300 × 4096 accesses; exact: a smaller run.
ROUNDS=1200 "$BIN/sprof_lib" -e task-clock --locality=1000 -o sampled.sprof ./data > /dev/null
ROUNDS=300 "$BIN/sprof_lib" -e task-clock --locality=exact -o exact.sprof ./data > /dev/null
"$BUILD/tests/locality_dump" sampled.sprof > sampled.json
"$BUILD/tests/locality_dump" exact.sprof > exact.json
python3 - sampled.json exact.json "$PWD/data" <<'PY' || fail "data objects, tenures or exact detail differ from what the program does"
import json, math, sys
sampled, exact, program = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
N = 4096
data = {d["id"]: d for d in sampled["data"]}
def kind(s):
    d = data.get(s["data"]) if s["data"] is not None else None
    if d is None: return "none"
    if d["kind"] == "heap": return "heap@" + d["site"]["function"]
    if d["kind"] == "static": return "static:" + d["name"]
    return d["kind"] + ":" + d["name"]
samples = sampled["samples"]
counts = {}
for s in samples:
    counts[kind(s)] = counts.get(kind(s), 0) + 1
total = len(samples)
R = 1200
accesses = {"static:table": (R + 1) * N, "heap@make_heap": (2 * R + 1) * N, "stack:[stack]": 3 * R * N}
all_accesses = sum(accesses.values())
print("samples per data object:", {k: v for k, v in sorted(counts.items(), key=lambda kv: -kv[1])})
for name, n in accesses.items():
    want = n / all_accesses
    got = counts.get(name, 0) / total
    sd = math.sqrt(want * (1 - want) / total)
    print(f"  {name}: {got:.4f} of the samples, {want:.4f} of the accesses (sd {sd:.4f})")
    assert abs(got - want) <= 5 * sd, (name, got, want)
statics = [d for d in sampled["data"] if d["kind"] == "static" and d["name"] == "table"]
assert statics and statics[0]["size"] == 8 * N and statics[0]["object"] == program, statics
# Tenures of lines walk() brought in: 8 loads a line in a row, so by its
# second gap (a round later) a tenure has touched the whole line.
by_position = {s["position"]: s for s in samples}
full = partial = 0
for t in sampled["tenures"]:
    s = by_position.get(t["position"])
    if s is None or s["trigger"]["function"] != "walk" or len(t["steps"]) < 2: continue
    if t["steps"][1]["used"] == (1 << 64) - 1: full += 1
    else: partial += 1
print(f"tenures of walk's lines: {full} used the whole line by their second step, {partial} did not")
assert full >= 20 and partial == 0, (full, partial)

# Exact mode: walk's loads, and its misses and tenures at 32 KiB and 1 MiB.
curve = exact["exact"][0]
detail = curve["detail_lines"]
at32, at1m = detail.index(32768 // 64), detail.index((1 << 20) // 64)
walk = [i for i in exact["exact_instructions"] if i["pc"]["function"] == "walk"]
loads = sum(i["accesses"] for i in walk)
misses32 = sum(i["at"][at32]["misses"] for i in walk)
used32 = sum(i["at"][at32]["used_bytes"] for i in walk)
bytes32 = sum(i["at"][at32]["bytes"] for i in walk)
misses1m = sum(i["at"][at1m]["misses"] for i in walk)
print(f"exact: walk made {loads} loads ({6 * 300 * N} by hand); at 32 KiB {misses32} misses (1536), "
      f"{used32} bytes used ({1536 * 64}), {bytes32} bytes read ({8 * loads}); at 1 MiB {misses1m} misses (512)")
assert loads == 6 * 300 * N
assert (misses32, used32, bytes32, misses1m) == (1536, 1536 * 64, 8 * loads, 512)
PY
pass "samples named by static, heap (make_heap) and stack objects in the shares of their accesses; whole lines used; exact tenures as computed by hand"

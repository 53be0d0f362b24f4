#!/usr/bin/env bash
# The exact cache simulator against Valgrind's cachegrind on the same access
# stream. Valgrind's lackey prints every instruction fetch and data access
# of a program (the stream cachegrind's simulation sees, from the same
# instrumentation); exact_trace_sim replays it through sprof's
# SetAssociativeLru caches built as cachegrind builds them (I1 and D1, their
# misses on to LL) and through StackDistances (fully associative LRU). On a
# naive and a blocked matrix multiply, at four cache configurations, every
# count must equal cachegrind's exactly: instructions, data accesses, I1,
# D1, LL misses of instructions and of data, and — where D1 is fully
# associative — the D1 misses the stack distances give.
source "$(dirname "$0")/common.sh" "$1"

command -v valgrind > /dev/null || { echo "skipped: valgrind is not installed (scripts/install-deps)"; exit 77; }
kernels=$WORK/loc_kernels_plain  # uninstrumented: cachegrind sees the program as it is
[ -x "$kernels" ] || { echo "skipped: no $kernels (the locality workloads need gcc)"; exit 77; }

# I1 D1 LL as cachegrind takes them (SIZE,ASSOC,LINE): the machine of the
# cachegrind manual; small caches that miss a lot in LL too; a fully
# associative D1 (one set of 256 lines); 32-byte lines.
configs=(
    "32768,8,64 32768,8,64 1048576,16,64"
    "8192,2,64 8192,2,64 65536,4,64"
    "32768,8,64 16384,256,64 262144,8,64"
    "16384,4,32 16384,4,32 131072,8,32"
)
fully_associative=2  # the index of the config whose D1 has one set

checked=0
for variant in "-k matmul -n 72" "-k blocked -n 72 -b 12"; do
    # shellcheck disable=SC2086  # the variant is two or four words
    valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$kernels" $variant 3> trace.txt > lackey.out 2> lackey.err ||
        fail "lackey on matmul $variant: $(tail -1 lackey.err)"
    for index in "${!configs[@]}"; do
        read -r i1 d1 ll <<< "${configs[$index]}"
        # shellcheck disable=SC2086
        valgrind --tool=cachegrind --cache-sim=yes --I1="$i1" --D1="$d1" --LL="$ll" \
            --cachegrind-out-file=cachegrind.out "$kernels" $variant > cachegrind.stdout 2> cachegrind.err ||
            fail "cachegrind on matmul $variant: $(tail -1 cachegrind.err)"
        cmp -s lackey.out cachegrind.stdout || fail "matmul $variant printed different results under lackey and cachegrind"
        "$BUILD/tests/exact_trace_sim" --I1="$i1" --D1="$d1" --LL="$ll" < trace.txt > sim.txt
        python3 - cachegrind.out sim.txt "$([ "$index" = "$fully_associative" ] && echo 1 || echo 0)" \
            "matmul $variant, I1 $i1 D1 $d1 LL $ll" <<'PY' || fail "matmul $variant, I1 $i1 D1 $d1 LL $ll"
import sys
events = summary = None
for line in open(sys.argv[1]):
    if line.startswith("events:"): events = line.split()[1:]
    if line.startswith("summary:"): summary = [int(v) for v in line.split()[1:]]
cg = dict(zip(events, summary))
sim = {k: int(v) for k, v in (line.split() for line in open(sys.argv[2]))}
fully_associative, what = sys.argv[3] == "1", sys.argv[4]
pairs = [("instructions", sim["instructions"], cg["Ir"]),
         ("data accesses", sim["data"], cg["Dr"] + cg["Dw"]),
         ("I1 misses", sim["I1_misses"], cg["I1mr"]),
         ("D1 misses", sim["D1_misses"], cg["D1mr"] + cg["D1mw"]),
         ("LL misses of instructions", sim["LLi_misses"], cg["ILmr"]),
         ("LL misses of data", sim["LLd_misses"], cg["DLmr"] + cg["DLmw"])]
if fully_associative:
    pairs.append(("D1 misses from stack distances", sim["D1_stack_misses"], cg["D1mr"] + cg["D1mw"]))
bad = [f"{name}: sprof {ours}, cachegrind {theirs}" for name, ours, theirs in pairs if ours != theirs]
# A comparison of nothing proves nothing: the program must miss in D1 and LL.
if cg["D1mr"] + cg["D1mw"] < 1000 or cg["DLmr"] + cg["DLmw"] < 100:
    bad.append(f"too few misses to compare: {cg}")
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
print(f"ok: {what}: " + ", ".join(f"{name} {ours}" for name, ours, _ in pairs))
PY
        checked=$((checked + 1))
    done
done
[ "$checked" = 8 ] || fail "compared $checked of 8 runs"
pass "exact simulator equals cachegrind on 2 programs × 4 cache configurations"

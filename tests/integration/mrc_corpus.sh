#!/usr/bin/env bash
# The randomized corpus of access patterns (tests/locality/mrc_corpus.py) on
# fixed seeds: ten small C programs nobody tuned the models on — cyclic
# sweeps of 0.5–2× a cache size, loops reusing each other's arrays, fields
# of arrays of structs, a hot set beside a stream, pointer chases, random
# reads, phases, threads — each built with sprof-cc, run once exact and once
# at 1 in 10^3. Per pattern the sampled curves must meet the corpus targets
# against the exact simulators (mrc_corpus.py TARGETS: LRU mean |error| ≤
# 0.005, random replacement within 0.015 at every size it simulates, the
# exact value inside the 95 % band at 90 % of the sizes or more). The LRU
# target at every size (≤ 0.03) is printed, not held: a cyclic footprint
# that ends within a few lines of a size of the grid still misses it there. `make bench` runs the same corpus on 160 programs at two
# rates (bench/run locality-corpus).
source "$(dirname "$0")/common.sh" "$1"
command -v setarch > /dev/null || { echo "skipped: no setarch to run without address randomization"; exit 77; }
python3 "$HERE/../locality/mrc_corpus.py" "$BUILD" "$SCRATCH/corpus" --seeds 1:10 --rates 1000 \
    --accesses 4000000 --largest-cache $((2 << 20)) --check --details ||
    fail "the sampled miss-ratio curves of the corpus miss their targets (above)"
pass "corpus of 10 generated programs: sampled curves meet the targets against the exact simulators"

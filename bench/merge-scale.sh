#!/usr/bin/env bash
# How merging a job's profiles scales with its ranks: N synthetic profiles of
# ten minutes each (60,000 samples, 1,000 functions, 4 events; written by
# sprof_synth rank:R/N), N = 1 … MAX_RANKS, through `sprof --imbalance` and the
# merged flat report. Prints the body of its bench/results fragment (Markdown) on
# stdout. Goal: linear; ≤ 10 s and ≤ 2 GiB at 1,024 ranks.
#
# usage: bench/merge-scale.sh BUILD_DIR [MAX_RANKS]   (scratch in BUILD_DIR/bench/merge-scale)
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR [MAX_RANKS]}" && pwd)
max=${2:-1024}
dir=$build/bench/merge-scale/profiles
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

# A job of `max` ranks, written once; a smaller N takes its first N ranks.
for ((r = 0; r < max; ++r)); do "$build/tests/sprof_synth" "rank:$r/$max" "$dir/job.rank$r.sprof"; done
one=$(stat -c %s "$dir/job.rank0.sprof")

# measure REPORT-ARGS… -- FILES…: "seconds max-RSS-KiB" of one sprof run.
measure() {
    local args=() out
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    out=$( { /usr/bin/time -f '%e %M' "$build/bin/sprof" "${args[@]}" "$@" > /dev/null; } 2>&1 | tail -n 1)
    echo "$out"
}

echo "Each rank: $(numfmt --to=iec "$one") on disk (10 minutes at 100 Hz: 60,000 samples in 1,200 intervals, 1,000 functions, 4 events); $(nproc) CPUs. Time and peak memory (max RSS) of one run of \`sprof\` over the first N ranks' files."
echo
echo "| ranks | files on disk | --imbalance: time | memory | flat (merged): time | memory | time per rank |"
echo "|------:|--------------:|------------------:|-------:|--------------------:|-------:|--------------:|"
for ((n = 1; n <= max; n *= 2)); do
    files=()
    for ((r = 0; r < n; ++r)); do files+=("$dir/job.rank$r.sprof"); done
    read -r ti mi < <(measure --imbalance --format csv -- "${files[@]}")
    read -r tf mf < <(measure --format csv -- "${files[@]}")
    per=$(python3 -c "print(f'{$ti / $n * 1000:.1f} ms')")
    echo "| $n | $(numfmt --to=iec $((one * n))) | ${ti} s | $(numfmt --to=iec $((mi * 1024))) | ${tf} s | $(numfmt --to=iec $((mf * 1024))) | $per |"
done

#!/usr/bin/env bash
# Analyzer speed on a one-hour profile (360,000 samples in 7,200 intervals,
# 1,000 functions, 4 events on 2 slots; written by sprof_synth): the flat
# report (target < 1 s) and automatic phases (target < 2 s). Prints a
# Markdown table fragment; each time is the best of 3 runs.
# Usage: bench/analyzer-speed.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: analyzer-speed.sh BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
profile=$work/hour.sprof
"$build/tests/sprof_synth" hour "$profile"

best_of_3() {
  local best=
  for _ in 1 2 3; do
    local start end t
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
    if [[ -z $best ]] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
  done
  printf '%.3f' "$best"
}

row() {  # name target command…
  local name=$1 target=$2; shift 2
  local t verdict
  t=$(best_of_3 "$@")
  verdict=$(awk -v t="$t" -v g="$target" 'BEGIN { print (t < g) ? "ok" : "SLOW" }')
  printf '| %s | %s | < %s | %s |\n' "$name" "$t" "$target" "$verdict"
}

echo "| analyzer (1 h profile, $(du -m "$profile" | cut -f1) MB) | time (s) | target (s) | |"
echo "|---|---:|---:|---|"
row "flat report" 1 "$build/bin/sprof" "$profile"
row "phases (auto)" 2 "$build/bin/sprof" --phases "$profile"
row "timeline" 1 "$build/bin/sprof" --timeline --format csv "$profile"

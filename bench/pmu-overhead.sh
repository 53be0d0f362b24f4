#!/usr/bin/env bash
# The cost of a sample on the hardware path (-e cycles,instructions) against
# the software path (-e task-clock,page-faults), both under sprof_lib at 1 ms
# in one arm64 guest with an emulated PMU: scripts/pmu-test's overhead check
# (the program's own CPU time over its unprofiled run, per sample). The
# guest's time is emulated (-icount shift=1: 2 ns an instruction), so only
# the ratio means anything. Prints a Markdown table fragment.
# Usage: bench/pmu-overhead.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: pmu-overhead.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$("$root/scripts/pmu-test" "$build" 2>/dev/null)
line=$(grep '^PASS overhead_per_sample:' <<< "$out") ||
  { echo "pmu-test's overhead check did not pass: $(tail -n 1 <<< "$out")" >&2; exit 1; }
ratio=$(sed -n 's|.*ratio hardware/software \([0-9.]*\).*|\1|p' <<< "$line")
echo "| path (sprof_lib, 1 ms ticks, arm64 guest under QEMU TCG) | CPU time a sample adds, relative to the software path |"
echo "|---|---:|"
echo "| software: task-clock, page-faults | 1.00 |"
echo "| hardware: cycles, instructions (armv8_pmuv3) | $ratio |"

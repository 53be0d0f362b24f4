#!/usr/bin/env bash
# sprof --phases on python3 running three kinds of interpreted work twice
# (tests/workloads/phases.py; sprof_pt, 2 ms ticks, histogram intervals of
# 100 ms of CPU time): every run finds the six parts the script measured for itself,
# labelled A B C A B C, each boundary at the rows that hold the truth's
# (phase_runs.py; bench/run phases measures the same over 20 runs).
source "$(dirname "$0")/common.sh" "$1"
[ -x /usr/bin/python3 ] || { echo "skipped: no /usr/bin/python3"; exit 77; }
runs=3
python3 "$HERE/phase_runs.py" "$BUILD" python $runs "$SCRATCH" | tee runs.txt
grep -qx "found $runs of $runs $BIN/sprof" runs.txt || fail "the phases of python3's run were not its parts in every run"
pass "python3: the six parts found in $runs of $runs runs"

#!/usr/bin/env bash
# sprof_lib --locality=exact on the sweep workload: for a fully associative
# LRU cache of C lines, the sweeps over N lines miss every load when C < N
# and only the N first ones when C >= N; the exact records must say so,
# count for count, per thread (two threads sweeping the same lines each see
# their own stream).
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock,page-faults task-clock,page-faults)

for threads in "1" "2 -S"; do
    # shellcheck disable=SC2086  # "2 -S" is two words
    "$BIN/sprof_lib" -e "$events" --locality=exact -o exact.sprof \
        "$WORK/loc_sweep" -n 300 -s 200 -t $threads -o truth.txt
    "$BUILD/tests/locality_dump" exact.sprof > exact.json
    python3 "$HERE/check_locality.py" exact exact.json truth.txt
    pass "exact, $threads thread(s): LRU misses step from every load to the first N at N = 300 lines"
done

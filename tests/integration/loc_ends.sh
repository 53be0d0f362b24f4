#!/usr/bin/env bash
# However an instrumented program ends (return, _exit, abort, exec), its
# locality records are in the profile, with the END that says how: sampled
# and exact mode.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock,page-faults task-clock,page-faults)

for mode in sampled exact; do
    flag=--locality=100
    [ $mode = exact ] && flag=--locality=exact
    for end in return _exit abort exec; do
        rc=0
        "$BIN/sprof_lib" -e "$events" $flag -o "end-$end.sprof" "$WORK/loc_sweep" -n 200 -s 50 -e $end \
            2> err.txt || rc=$?
        "$BUILD/tests/locality_dump" "end-$end.sprof" > end.json || fail "$mode/$end: profile unreadable"
        python3 "$HERE/check_locality.py" ended end.json $mode || fail "$mode/$end: records missing (exit $rc)"
        how=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["present"])' end.json)
        [ "$how" = True ] || fail "$mode/$end: no END record"
    done
    pass "$mode: return, _exit, abort and exec each leave the locality records and an END"
done

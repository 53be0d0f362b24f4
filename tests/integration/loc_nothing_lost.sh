#!/usr/bin/env bash
# Nothing lost: a C++ program whose two threads fill a std::map and a
# std::unordered_map (tests/workloads/locality/two_maps.cpp, built with
# sprof-c++) allocates and is sampled faster than the runtime's writer
# drains (with one ring of 2^16 allocations per thread, at 1 in 100 and
# 400,000 keys each, it lost 1,003,386 allocations and 36,555 samples).
# Run at 1 in 1000 and at 1 in 100: the profile must say nothing was
# dropped (every thread's LOCALITY_WINDOW parts), stderr must hold no word
# from sprof (a loss, or a record the writer refused: a tenure's weighted
# count once overflowed at 1 in 100), and every sample a window started
# must be in the profile: the samples each window counted as it ran
# against the sample records written for it, counted independently.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock task-clock)

"$BIN/sprof-c++" -O2 -g "$HERE/../workloads/locality/two_maps.cpp" -o two_maps -pthread
for period in 1000 100; do
    "$BIN/sprof_lib" -e "$events" --locality=$period -o maps.sprof ./two_maps 400000 > out.txt 2> err.txt
    read -r ordered hashed _ < out.txt
    [ "$ordered" = 400000 ] && [ "$hashed" = 400000 ] || fail "1 in $period: the program's maps: $(cat out.txt)"
    ! grep -Ei "^sprof:" err.txt || fail "1 in $period: the runtime reports losses or errors: $(cat err.txt)"
    "$BUILD/tests/locality_dump" maps.sprof > maps.json
    python3 - maps.json $period <<'PY' || fail "1 in $period: locality records were lost"
import collections, json, sys
d = json.load(open(sys.argv[1]))
windows = d["windows"]
lost = sum(w["lost_records"] for w in windows), sum(w["lost_allocations"] for w in windows)
started = collections.Counter()
for w in windows:
    started[(w["tid"], w["window"])] += w["samples"]
written = collections.Counter((s["tid"], s["window"]) for s in d["samples"])
threads = len({w["tid"] for w in windows})
print(f"1 in {sys.argv[2]}: {threads} threads, {sum(started.values())} samples started, "
      f"{sum(written.values())} written; dropped: {lost[0]} records, {lost[1]} allocations")
assert threads == 2, threads
assert lost == (0, 0), lost
assert started == written, [(k, started[k], written[k]) for k in started.keys() | written.keys() if started[k] != written[k]][:5]
PY
    "$BIN/sprof" --info maps.sprof | grep -q "locality lost *nothing" || fail "1 in $period: --info does not say nothing was lost"
done
pass "two threads filling a std::map and a std::unordered_map: no sample and no allocation lost, and the profile says so"

#!/usr/bin/env bash
# How often `sprof --phases` finds a phased program's parts: RUNS runs of
# python3 running tests/workloads/phases.py (three kinds of interpreted work,
# twice: A B C A B C) and of the C workload tests/workloads/phases (setup,
# then compress and decompress twice: A B C B C) under sprof_pt, each judged
# against the parts the program measured for itself (one phase per part,
# labels following the parts, every boundary at the rows that hold the
# truth's: tests/integration/phase_runs.py); quiet, and beside two busy
# loops (the program then gets about two thirds of a CPU). With a
# BASELINE sprof, the same profiles are judged by it too.
# usage: phase_repeat.sh BUILD_DIR DATA_DIR RUNS [BASELINE_SPROF]
set -euo pipefail
build=$1 data=$2 runs=$3 baseline=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
sprofs=("$build/bin/sprof")
[ -z "$baseline" ] || sprofs+=("$baseline")
busy=()
stop_busy() { [ ${#busy[@]} = 0 ] || kill "${busy[@]}" 2>/dev/null || true; busy=(); }
trap stop_busy EXIT
echo "$runs runs of each workload under \`sprof_pt\`, quiet and beside two busy loops, judged by \`tests/integration/phase_runs.py\`$([ -z "$baseline" ] || echo "; before = $baseline, the same profiles")."
echo
echo "| workload | load | sprof | runs that found every part | what the others found |"
echo "|---|---|---|---|---|"
for load in quiet busy; do
    mkdir -p "$data/$load"
    if [ "$load" = busy ]; then
        for _ in 1 2; do (while :; do :; done) >/dev/null 2>&1 & busy+=($!); done
    fi
    for workload in python c; do
        out=$data/$load/$workload.txt
        python3 "$here/../tests/integration/phase_runs.py" "$build" "$workload" "$runs" "$data/$load" "${sprofs[@]}" > "$out"
        for s in "${sprofs[@]}"; do
            found=$(grep -F "found " "$out" | grep -F " $s" | awk '{print $2}')
            # Every run right: grep -v finds nothing, which is no error here.
            wrong=$( (grep -F " $s: " "$out" | grep -v ': ok$' || true) | sed 's/^run [0-9]* [^ ]*: //; s/ s, truth .*//' | sort | uniq -c | sort -rn | head -3 |
                    awk '{c=$1; $1=""; printf "%s%s ×%d", (NR>1 ? "; " : ""), $0, c}')
            echo "| $workload | $load | \`$s\` | $found of $runs | ${wrong:--} |"
        done
    done
    stop_busy
done

#!/usr/bin/env bash
# How often `sprof --phases` finds a phased program's parts: RUNS runs of
# python3 running tests/workloads/phases.py (three kinds of interpreted work,
# twice: A B C A B C) and of the C workload tests/workloads/phases (setup,
# then compress and decompress twice: A B C B C) under sprof_pt, each judged
# against the parts the program measured for itself (one phase per part,
# labels following the parts, every boundary at the rows that hold the
# truth's: tests/integration/phase_runs.py). With a BASELINE sprof, the same
# profiles are judged by it too.
# usage: phase_repeat.sh BUILD_DIR DATA_DIR RUNS [BASELINE_SPROF]
set -euo pipefail
build=$1 data=$2 runs=$3 baseline=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
sprofs=("$build/bin/sprof")
[ -z "$baseline" ] || sprofs+=("$baseline")
echo "$runs runs of each workload under \`sprof_pt\`, judged by \`tests/integration/phase_runs.py\`$([ -z "$baseline" ] || echo "; before = $baseline, the same profiles")."
echo
echo "| workload | sprof | runs that found every part | what the others found |"
echo "|---|---|---|---|"
for workload in python c; do
    python3 "$here/../tests/integration/phase_runs.py" "$build" "$workload" "$runs" "$data" "${sprofs[@]}" > "$data/$workload.txt"
    for s in "${sprofs[@]}"; do
        found=$(grep -F "found " "$data/$workload.txt" | grep -F " $s" | awk '{print $2}')
        # Every run right: grep -v finds nothing, which is no error here.
        wrong=$( (grep -F " $s: " "$data/$workload.txt" | grep -v ': ok$' || true) | sed 's/^run [0-9]* [^ ]*: //; s/ s, truth .*//' | sort | uniq -c | sort -rn | head -3 |
                awk '{c=$1; $1=""; printf "%s%s ×%d", (NR>1 ? "; " : ""), $0, c}')
        echo "| $workload | \`$s\` | $found of $runs | ${wrong:--} |"
    done
done

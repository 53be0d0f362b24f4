#!/usr/bin/env bash
# What symbols and source lines cost the collector on a python3 run:
# sprof_pt records bench/python_cpu.py, then symbol_load_time measures, for
# each object with samples, reading its function table (what every run
# pays on the first PC in an object) and opening its debug info to find the
# line and inline chain of each address sampled in it (what source lines
# add, once per distinct address). Prints a Markdown fragment.
# Usage: bench/symbols.sh BUILD_DIR DATA_DIR ROUNDS
set -euo pipefail
build=${1:?usage: symbols.sh BUILD_DIR DATA_DIR ROUNDS} data=${2:?} rounds=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
"$build/bin/sprof_pt" -e task-clock -s 5ms -o "$data/py.sprof" /usr/bin/python3 "$here/python_cpu.py" 40 > /dev/null
samples=$("$build/bin/sprof" --format csv "$data/py.sprof" | awk -F, 'NR > 1 {n += $3} END {print n}')
echo "python3 running bench/python_cpu.py under \`sprof_pt -s 5ms\` ($samples samples). Per object with samples: its function table read as the collector reads it (libdwfl; libc's from libc6-dbg's separate debug file), and its debug info opened and the source line and inline chain found for every distinct address sampled in it (what \`sprof --lines\` needs, resolved once per address and cached). CPU time, best of $rounds rounds, each from scratch (page cache warm)."
echo
"$build/tests/symbol_load_time" "$data/py.sprof" "$rounds"

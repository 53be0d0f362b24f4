#!/usr/bin/env bash
# What the checksum of every record (format 1.11) costs the profile writer:
# sprof_lib records tests/workloads/phases with 10 samples per interval, then
# record_checksum_cost writes its intervals again, and checksums the same
# records alone, side by side. Prints a Markdown fragment.
# Usage: bench/record_checksum.sh BUILD_DIR DATA_DIR ROUNDS
set -euo pipefail
build=${1:?usage: record_checksum.sh BUILD_DIR DATA_DIR ROUNDS} data=${2:?} rounds=${3:?}
"$build/bin/sprof_lib" -q -e task-clock,page-faults,context-switches -H 10 -o "$data/phases.sprof" \
    "$build/tests/workloads/phases" -r 3 -l 0.5 -o "$data/truth.txt"
echo "The intervals of a \`sprof_lib -H 10\` profile of tests/workloads/phases (3 events) written again by ProfileWriter into the page cache, each record encoded, checksummed and written with one \`write()\`, against the CRC32C of the same records alone, timed in the same rounds."
echo
"$build/tests/record_checksum_cost" "$data/phases.sprof" "$rounds" "$data/rewritten.sprof"

# Sourced by the integration tests: paths, a scratch directory, and the
# profile-vs-truth checker. Usage in a test: source "$(dirname "$0")/common.sh" "$1"
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
BIN=$BUILD/bin
WORK=$BUILD/tests/workloads
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sprof-test.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# alternate_vs_truth COLLECTOR SECONDS: runs the alternate workload (two
# functions of known CPU time and page faults) under a collector with 4
# software events on 2 slots, and compares time shares and page faults with
# the workload's own accounting, for both estimators.
alternate_vs_truth() {
    local collector=$1 seconds=$2
    "$BIN/$collector" -e task-clock,page-faults,context-switches,cpu-migrations --slots 2 -o alt.sprof \
        "$WORK/alternate" -t "$seconds" -m 50 -o truth.txt
    for est in coverage carry; do
        "$BIN/sprof" --format csv --estimator $est alt.sprof > report-$est.csv
        python3 "$HERE/check_alternate.py" report-$est.csv truth.txt "$collector/$est"
    done
}

# threads_vs_truth COLLECTOR [THREADS]: three threads working 1:2:3, each in
# its own function; their time shares against their own CPU clocks, and a
# thread record for each worker — exactly THREADS records when given (the main
# thread only waits: sprof_pt knows it from the start, sprof_lib only when it
# was sampled).
threads_vs_truth() {
    local collector=$1 expected=${2:-}
    "$BIN/$collector" -e task-clock,page-faults --slots 1 -o threads.sprof "$WORK/threads" -u 0.4 -o truth.txt
    "$BIN/sprof" --format csv threads.sprof > report.csv
    python3 "$HERE/check_shares.py" report.csv truth.txt "$collector/threads" \
        work1=work1_cpu_s work2=work2_cpu_s work3=work3_cpu_s
    local threads
    threads=$("$BIN/sprof" --info --format json threads.sprof |
        python3 -c 'import json, sys; print(len(json.load(sys.stdin)["profiles"][0]["threads"]))')
    if [ -n "$expected" ]; then
        [ "$threads" -eq "$expected" ] || fail "$collector: $threads threads in the profile, not $expected"
    else
        [ "$threads" -ge 3 ] || fail "$collector: $threads threads in the profile, not at least the 3 workers"
    fi
}

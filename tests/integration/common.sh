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

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

# check_shares CSV TRUTH ESTIMATOR: compares per-function time shares and page
# faults of the alternate workload with its own accounting.
check_alternate() {
    python3 "$HERE/check_alternate.py" "$@"
}

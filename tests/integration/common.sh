# Sourced by the integration tests: paths, a scratch directory, and the
# profile-vs-truth checker. Usage in a test: source "$(dirname "$0")/common.sh" "$1"
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
BIN=$BUILD/bin
WORK=$BUILD/tests/workloads
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# A user's run. ctest registers each collector test a second time as
# NAME_nobody with SPROF_TEST_AS_NOBODY=1: run as root, the script then runs
# itself again as the user nobody, with the same assertions. Anyone but root
# cannot become nobody, and is a user already (the plain test covers it): skip.
if [ "${SPROF_TEST_AS_NOBODY:-0}" = 1 ]; then
    [ "$(id -u)" = 0 ] || { echo "skipped: not root (uid $(id -u)), cannot become nobody; the plain test already runs as a user"; exit 77; }
    command -v setpriv > /dev/null || { echo "skipped: no setpriv to become nobody"; exit 77; }
    # nobody may not reach the build tree (a clone in /root): a copy of what
    # the tests use goes to /tmp, which every user can enter (TMPDIR may not).
    # Archives (lib/*.a) are only for linking; sprof_lib needs lib/*.so.
    COPY=$(mktemp -d /tmp/sprof-nobody.XXXXXX)
    trap 'rm -rf "$COPY"' EXIT
    mkdir -p "$COPY/build/lib" "$COPY/build/tests" "$COPY/home"
    cp -a "$BIN" "$COPY/build/bin"
    cp -a "$BUILD"/lib/*.so* "$COPY/build/lib/"
    cp -a "$WORK" "$COPY/build/tests/workloads"
    cp -a "$BUILD/tests/locality_dump" "$COPY/build/tests/"
    cp -a "$BUILD/share" "$COPY/build/share"  # sprof-cc's specs file
    cp -a "$HERE" "$COPY/integration"
    chmod -R a+rX "$COPY"
    chown 65534:65534 "$COPY/home"  # nobody's scratch space and $HOME (perf writes ~/.debug)
    echo "running as nobody (uid 65534) on a copy in $COPY"
    set +e
    HOME=$COPY/home TMPDIR=$COPY/home SPROF_TEST_AS_NOBODY=inside \
        setpriv --reuid=65534 --regid=65534 --clear-groups bash "$COPY/integration/$(basename "$0")" "$COPY/build"
    exit $?
fi

# At kernel.perf_event_paranoid 2 (Debian's default) a user counts its own
# tasks in user space only, where kernel-only events (context-switches,
# cpu-migrations) always count 0, so a user's run must not ask for them. Root counts
# everything. UNPRIVILEGED says which of the two this run is.
if [ "$(id -u)" = 0 ]; then UNPRIVILEGED=0; else UNPRIVILEGED=1; fi
export UNPRIVILEGED

# choose_events ROOT_EVENTS USER_EVENTS: the event list of this run. A test
# states both lists in one place; a user's run gets the one a user can count.
choose_events() { if [ "$UNPRIVILEGED" = 1 ]; then echo "$2"; else echo "$1"; fi; }

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
    local collector=$1 seconds=$2 events
    # A user has no kernel-only events: two user-space fault counts rotate instead.
    events=$(choose_events task-clock,page-faults,context-switches,cpu-migrations \
                           task-clock,page-faults,minor-faults,major-faults)
    "$BIN/$collector" -e "$events" --slots 2 -o alt.sprof \
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

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
    [ -n "${SPROF_TEST_KEEP:-}" ] || trap 'rm -rf "$COPY"' EXIT
    mkdir -p "$COPY/build/lib" "$COPY/build/tests" "$COPY/home"
    cp -a "$BIN" "$COPY/build/bin"
    cp -a "$BUILD"/lib/*.so* "$COPY/build/lib/"
    cp -a "$WORK" "$COPY/build/tests/workloads"
    cp -a "$BUILD/tests/locality_dump" "$COPY/build/tests/"
    cp -a "$BUILD/share" "$COPY/build/share"  # sprof-cc's specs file
    cp -a "$HERE" "$COPY/integration"
    cp -a "$HERE/../workloads" "$COPY/workloads"  # sources: tests find marked lines in them
    chmod -R a+rX "$COPY"
    chown 65534:65534 "$COPY/home"  # nobody's scratch space and $HOME (perf writes ~/.debug)
    echo "running as nobody (uid 65534) on a copy in $COPY"
    set +e
    HOME=$COPY/home TMPDIR=$COPY/home SPROF_TEST_AS_NOBODY=inside SPROF_TEST_KEEP=${SPROF_TEST_KEEP:-} \
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

# check_conservation: every profile a test made — each on its own, and all
# of them as one dataset — must have reports that add up to its flat report,
# and the flat report to the run's total within its interval
# (check_conservation.py --run-total). Run when the test itself passed; profiles sprof
# cannot read (a test's hostile input) are not checked.
check_conservation() {
    local profiles=() p rc
    while IFS= read -r -d '' p; do profiles+=("$p"); done < <(find "$SCRATCH" -name '*.sprof' -type f -print0 | sort -z)
    [ ${#profiles[@]} -gt 0 ] || return 0
    for p in "${profiles[@]}"; do
        rc=0
        python3 "$HERE/check_conservation.py" --run-total "$BIN/sprof" "$p" || rc=$?
        [ $rc = 0 ] || [ $rc = 77 ] || return 1
    done
    if [ ${#profiles[@]} -gt 1 ]; then
        rc=0
        python3 "$HERE/check_conservation.py" --run-total "$BIN/sprof" "${profiles[@]}" || rc=$?
        [ $rc = 0 ] || [ $rc = 77 ] || return 1
    fi
}

# At the end: the conservation check (if the test passed), then the scratch
# directory goes, unless SPROF_TEST_KEEP=1 keeps it (to look at a failure) and says where.
# A test with a trap of its own calls it last, with the exit status: trap 'rc=$?; …; finish_test $rc' EXIT.
finish_test() {
    local rc=${1:-$?}
    if [ $rc = 0 ] && ! check_conservation; then
        echo "FAIL: a report does not add up to the flat report or the run's total (check_conservation.py)" >&2
        rc=1
    fi
    if [ -n "${SPROF_TEST_KEEP:-}" ]; then echo "kept: $SCRATCH" >&2; else rm -rf "$SCRATCH"; fi
    exit $rc
}
trap finish_test EXIT
cd "$SCRATCH"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# forkexec_vs_truth COLLECTOR: forkexec's parent works in parent_work(), its
# child in child_work() and then execs alternate (heavy, light): each
# process's profile holds its own functions only, with the samples their
# CPU time makes at the default 10 ms (0.5 s: 50). sprof_pt goes on in the
# child's file after the exec; sprof_lib writes the exec'd image to the
# pid's next file (.exec1). Each profile adds up (check_conservation.py).
forkexec_vs_truth() {
    local collector=$1 child parent exec_profile want=3 p
    "$BIN/$collector" -e task-clock -o fe.%p.sprof "$WORK/forkexec" -t 0.5 -- "$WORK/alternate" -t 1 -o /dev/null > out.txt
    child=$(awk '/^child/ {print $2}' out.txt)
    exec_profile=fe.$child.exec1.sprof
    [ "$collector" = sprof_pt ] && exec_profile=fe.$child.sprof want=2
    local profiles=(fe.*.sprof)
    [ ${#profiles[@]} -eq $want ] || fail "$collector: expected $want profiles, found: ${profiles[*]}"
    [ -f "fe.$child.sprof" ] && [ -f "$exec_profile" ] || fail "$collector: no profile of the child $child: ${profiles[*]}"
    parent=$(ls fe.*.sprof | grep -v "fe.$child\.")
    "$BIN/sprof" --format csv "$parent" > parent.csv
    "$BIN/sprof" --format csv "fe.$child.sprof" > child.csv
    "$BIN/sprof" --format csv "$exec_profile" > exec.csv
    samples() { awk -F, -v f="$2" '$1 == f {print $3}' "$1"; }
    [ "$(samples parent.csv parent_work)" -ge 40 ] || fail "parent_work: $(samples parent.csv parent_work) samples in the parent"
    [ -z "$(samples parent.csv child_work)$(samples parent.csv heavy)" ] || fail "the parent's profile has the child's functions"
    [ "$(samples child.csv child_work)" -ge 40 ] || fail "child_work in the forked child: $(samples child.csv child_work) samples"
    [ -z "$(samples child.csv parent_work)" ] || fail "the child's profile has the parent's parent_work"
    [ "$(samples exec.csv heavy)" -ge 60 ] && [ "$(samples exec.csv light)" -ge 15 ] ||
        fail "after the exec: heavy $(samples exec.csv heavy), light $(samples exec.csv light) samples"
    for p in "${profiles[@]}"; do python3 "$HERE/check_conservation.py" --run-total "$BIN/sprof" "$p" || fail "$p does not add up"; done
}

# alternate_vs_truth COLLECTOR SECONDS [BURST [CHECK_OPTIONS…]]: runs the
# alternate workload (two functions of known CPU time and page faults; heavy
# faults evenly, or in a burst at its entry or exit) under a collector with
# 4 software events on $ALT_SLOTS slots (default 2), and compares time
# shares and page faults with the workload's own accounting, for both
# estimators.
alternate_vs_truth() {
    local collector=$1 seconds=$2 burst=${3:-even} slots=${ALT_SLOTS:-2} events
    shift $(( $# < 3 ? $# : 3 ))
    # A user has no kernel-only events: two user-space fault counts rotate instead.
    events=$(choose_events task-clock,page-faults,context-switches,cpu-migrations \
                           task-clock,page-faults,minor-faults,major-faults)
    "$BIN/$collector" -e "$events" --slots "$slots" -o alt.sprof \
        "$WORK/alternate" -t "$seconds" -m 50 -b "$burst" -o truth.txt
    for est in coverage carry; do
        "$BIN/sprof" --format csv --estimator $est alt.sprof > report-$est.csv
        python3 "$HERE/check_alternate.py" report-$est.csv truth.txt "$collector/$burst/$est" "$@"
    done
    # Four events take turns on the slots: each is live slots/4 of the time.
    "$BIN/sprof" --info --format json alt.sprof | python3 -c '
import json, sys
live = [e["live_fraction"] for e in json.load(sys.stdin)["profiles"][0]["events"]]
print(f"live fractions: {live}")
assert len(live) == 4 and all(abs(f - '"$slots"' / 4) <= 0.02 for f in live), live' ||
        fail "$collector: the events were not live $slots of 4 of the time"
}

# bursts_vs_truth COLLECTOR: the alternate workload whose heavy() faults in
# a burst at its entry, then at its exit, every event live (whether a
# rotation saw a burst or not is the multiplexing's error, which the
# intervals carry: bench calibration). A tick's delta cannot tell where in
# the call the faults happened; the faults' own samples can: heavy() within
# 5 % of its faults, light(), which faults never, within 1 % of the run's.
bursts_vs_truth() {
    local burst
    for burst in entry exit; do
        ALT_SLOTS=4 alternate_vs_truth "$1" 3 "$burst" --faults-pct 5
    done
}

# ci_vs_truth COLLECTOR SECONDS: every counting event this user has (root:
# the software events and msr/tsc/; a user: those of user space) on 2 slots,
# selfcount's four functions counting their own; `sprof --ci` must give
# every estimate a 95 % interval (NAME_low, NAME_high), and the intervals
# must cover the truth, for both estimators, in the flat profile; the time
# line and the JSON carry the same columns.
ci_vs_truth() {
    local collector=$1 seconds=$2 events
    events=$(choose_events task-clock,cpu-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations,alignment-faults,emulation-faults \
                           task-clock,cpu-clock,page-faults,minor-faults,major-faults,alignment-faults,emulation-faults)
    # msr/tsc/ where the kernel has the msr PMU and the user may count the kernel.
    if [ "$UNPRIVILEGED" = 0 ] && [ -e /sys/bus/event_source/devices/msr/events/tsc ]; then events=$events,msr/tsc/; fi
    "$BIN/$collector" -e "$events" --slots 2 -o ci.sprof \
        "$WORK/selfcount" -t "$seconds" -m 10 -d "$SCRATCH" -e "$events" -o truth.txt
    # The ticks are dithered, except where the kernel drops those that land
    # in it (a user): the lost ones are counted on a fixed period.
    "$BIN/sprof" --info --format json ci.sprof | python3 -c '
import json, sys
p = json.load(sys.stdin)["profiles"][0]
user_only = any(e["user_only"] for e in p["events"])
assert p["tick_dither"] == (0 if user_only else 0.25), (p["tick_dither"], user_only)' ||
        fail "$collector: the tick dither recorded is not the one this user gets"
    for est in coverage carry; do
        "$BIN/sprof" --ci --format csv --estimator $est ci.sprof > ci-$est.csv
        python3 "$HERE/check_ci.py" ci-$est.csv truth.txt "$events" "$collector/$est"
    done
    "$BIN/sprof" --ci --timeline --by-function --format csv ci.sprof > timeline.csv
    "$BIN/sprof" --ci --format json ci.sprof > flat.json
    python3 - timeline.csv flat.json "$events" <<'PY' || fail "$collector: the time line or the JSON lack the intervals"
import csv, json, sys
rows, doc, events = list(csv.DictReader(open(sys.argv[1]))), json.load(open(sys.argv[2])), sys.argv[3].split(",")
for e in events:
    assert e + "_low" in rows[0] and e + "_high" in rows[0], e
    assert e + "_low" in doc["functions"][0] and e + "_high" in doc["functions"][0], e
    assert e + "_low" in doc["total"], e
# A row's interval holds its estimate wherever both are known.
for r in rows:
    for e in events:
        if r[e] and r[e + "_low"]:
            assert float(r[e + "_low"]) <= float(r[e]) <= float(r[e + "_high"]), (r["interval"], r["function"], e)
print(f"time line: {len(rows)} rows with intervals; JSON: the same keys")
PY
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

# mpi_job_vs_truth COLLECTOR: runs the MPI test job (4 ranks, work 1:2:3:4)
# under Open MPI with COLLECTOR per rank, checks one profile per rank with
# its rank in the header, `sprof --imbalance`, WARP and predictions against
# the ranks' own accounting, and each rank's phases against the time line it
# measured (check_rank_phases.py); then a job that loses rank 1 (SIGKILL)
# still reports the others and names rank 1 as incomplete. SKIP without Open MPI.
mpi_job_vs_truth() {
    local collector=$1 events
    command -v mpirun > /dev/null && [ -x "$WORK/mpi_unequal" ] ||
        { echo "skipped: no Open MPI (mpirun) or no MPI test job"; exit 77; }
    local mpirun=(mpirun --oversubscribe --bind-to none)
    [ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
    events=$(choose_events task-clock,page-faults,context-switches task-clock,page-faults)
    # Samples every 2 ms, 25 to an interval (50 ms): each rank's compute and
    # fill (0.3 s of CPU per unit of work) span 6 intervals or more, long
    # enough to be phases of their own (3 intervals at least), and one sample
    # is not a tenth of an interval (what sprof --phases tells apart). fill
    # faults 5,000 pages per unit, 17 a ms of CPU: a fault may cost 60 µs
    # (a busy machine) and the rate still holds (see mpi_unequal.c).
    "${mpirun[@]}" -np 4 "$BIN/$collector" -e "$events" -s 2ms -H 25 -o job.sprof \
        "$WORK/mpi_unequal" -u 0.3 -p 5000 -o truth 2> mpirun.err || { cat mpirun.err; fail "the MPI job failed"; }
    for r in 0 1 2 3; do [ -s job.rank$r.sprof ] || fail "no profile job.rank$r.sprof (ls: $(ls))"; done
    [ "$(ls ./*.sprof | wc -l)" = 4 ] || fail "more profiles than ranks: $(ls ./*.sprof)"
    "$BIN/sprof" --info --format json job.rank*.sprof > info.json
    "$BIN/sprof" --imbalance --format csv job.rank*.sprof > imbalance.csv
    python3 - info.json imbalance.csv truth <<'PY'
import csv, json, sys
info, rows, truth = json.load(open(sys.argv[1]))["profiles"], list(csv.DictReader(open(sys.argv[2]))), sys.argv[3]
assert sorted(p["rank"] for p in info) == [0, 1, 2, 3], [p["rank"] for p in info]
assert all(p["ranks"] == 4 and p["job_id"] == info[0]["job_id"] != "" for p in info), info
t = {}
for r in range(4):
    for line in open(f"{truth}.{r}"):
        k, v = line.split()
        t.setdefault(k, []).append(float(v))
def ratio(v): return max(v) / (sum(v) / len(v))
compute_s = t["compute_s"]  # task-clock, the clock of the profile's time (mpi_unequal.c)
by = {row["function"]: row for row in rows}
assert rows[0]["function"] == "[total]", rows[0]
compute, fill = by["compute"], by["fill"]
want = ratio(compute_s)
got = float(compute["max_over_mean"])
print(f"compute: max/mean {got:.3f}, truth {want:.3f}; slowest rank {compute['slowest_rank']}")
# Each rank's share of the job's compute time within 2 points. (Shares, not
# seconds: compute's own clock includes its clock_gettime calls, which the
# profile rightly charges to the vDSO/libc, a few percent on every rank.)
est = [float(compute[f"rank{r}_s"]) for r in range(4)]
for r in range(4):
    got_share, want_share = est[r] / sum(est), compute_s[r] / sum(compute_s)
    assert abs(got_share - want_share) <= 0.02, f"rank {r}: {got_share:.3f} of compute, truth {want_share:.3f}"
assert abs(got - want) <= 0.05 * want, f"compute max/mean {got:.3f}, truth {want:.3f}"
assert compute["slowest_rank"] == "3", compute
fwant, fgot = ratio(t["fill_faults"]), float(fill["page-faults_max_over_mean"])
print(f"fill: page-faults max/mean {fgot:.3f}, truth {fwant:.3f}; slowest rank {fill['page-faults_slowest_rank']}")
assert abs(fgot - fwant) <= 0.10 * fwant, f"fill page-faults max/mean {fgot:.3f}, truth {fwant:.3f}"
assert fill["page-faults_slowest_rank"] == "3", fill
PY
    "$BIN/sprof" --export chrome-trace trace.json job.rank*.sprof
    python3 - trace.json <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
assert sorted(n.split(" (")[0] for n in names.values()) == [f"rank {r}" for r in range(4)], names
for pid in names:  # every rank: its own spans and counter tracks
    assert any(e["pid"] == pid and e["ph"] == "X" for e in events), names[pid]
    assert any(e["pid"] == pid and e["ph"] == "C" for e in events), names[pid]
PY
    pass "$collector under mpirun: one profile per rank, imbalance as the ranks measured it, a track per rank"

    # The ranks as tasks (WARP): each rank's workload vector, and each rank's
    # run time predicted on a machine whose one cost is 10 µs per page fault;
    # both against the faults each rank measured in fill(). Differences to
    # rank 0 cancel the faults every rank makes alike (MPI's start-up).
    echo '{"seconds_per_event": {"page-faults": 1e-5}}' > machine.json
    "$BIN/sprof" --warp job.rank*.sprof > warp.json
    "$BIN/sprof" --predict machine.json --format csv job.rank*.sprof > predict.csv
    python3 - warp.json predict.csv truth <<'PY' || fail "per-rank WARP or prediction differ from the ranks' own accounting"
import csv, json, sys
warp, predict = json.load(open(sys.argv[1])), list(csv.DictReader(open(sys.argv[2])))
truth = sys.argv[3]
fill = [int(dict(l.split() for l in open(f"{truth}.{r}"))["fill_faults"]) for r in range(4)]
vectors = {v["rank"]: v for v in warp["ranks"]}
assert sorted(vectors) == [0, 1, 2, 3], sorted(vectors)
faults = [vectors[r]["events"]["page-faults"]["total"] for r in range(4)]
rows = {p["phase"]: p for p in predict}
predicted = [float(rows[f"rank{r}"]["predicted_s"]) for r in range(4)]
for r in range(1, 4):
    want = fill[r] - fill[0]
    got_v, got_p = faults[r] - faults[0], (predicted[r] - predicted[0]) / 1e-5
    print(f"rank {r} - rank 0: {got_v:.0f} faults in its vector, {got_p:.0f} in its prediction, truth {want}")
    assert abs(got_v - want) <= 0.05 * want and abs(got_p - want) <= 0.05 * want, (r, got_v, got_p, want)
assert rows["rank3"]["label"] == "slowest" and rows["job"]["label"] == "rank3", rows
assert float(rows["job"]["predicted_s"]) == predicted[3], rows["job"]
PY
    pass "$collector under mpirun: each rank's workload vector and predicted time"

    # Each rank's own phases, side by side, against the rank's own time line;
    # with the fault rate alone: context switches follow how the ranks share
    # the machine's CPUs with each other and everything else, which no
    # rank's time line knows.
    "$BIN/sprof" --phases --no-default-rates --rate 'faults_per_ms=page-faults/task-clock*1e6' \
        --format csv job.rank*.sprof > phases.csv
    for r in 0 1 2 3; do "$BIN/sprof" --timeline --format csv job.rank$r.sprof > timeline.$r.csv; done
    python3 "$HERE/check_rank_phases.py" phases.csv timeline truth "$collector" ||
        fail "$collector: the ranks' phases differ from their own time lines"
    pass "$collector under mpirun: each rank's phases where its parts were"

    mkdir killed && cd killed
    set +e
    "${mpirun[@]}" -np 3 "$BIN/$collector" -e "$events" -o job.sprof \
        "$WORK/mpi_unequal" -u 0.2 -p 500 -k 1 > mpirun.out 2>&1
    local rc=$?
    set -e
    [ "$rc" != 0 ] || fail "mpirun says the job that lost a rank succeeded"
    for r in 0 1 2; do [ -s job.rank$r.sprof ] || fail "no profile job.rank$r.sprof after a rank was lost"; done
    "$BIN/sprof" --imbalance job.rank*.sprof > report.txt 2> report.err || fail "no report for a job that lost a rank: $(cat report.err)"
    # Rank 1 was killed (sprof_lib: no END; sprof_pt saw it die of SIGKILL).
    # The launcher then stops the others (SIGTERM, then SIGKILL after a grace
    # period): they are incomplete too, but their work is in the report.
    grep -Eq "^rank 1: incomplete, .*(no END record|signal 9 )" report.txt ||
        fail "the report does not name rank 1 killed: $(cat report.txt report.err)"
    for r in 0 2; do
        grep -Eq "^ +$r +[^ ]+ +1 +(yes|no) +[1-9]" report.txt || fail "rank $r's work is not in the report: $(cat report.txt)"
    done
    cd ..
    pass "$collector: a job that lost rank 1 still reports, and names rank 1 incomplete"
}

# lines_vs_truth COLLECTOR: the lines workload (tests/workloads/lines.c,
# built with -g) under COLLECTOR. `sprof --lines` must put plain_loop's and
# the inlined helper's share of the time on their lines, found by their
# markers in the source, within sampling error of the workload's own clock;
# the helper is a function of its own with --inline and folded into its
# caller, at the line of the call, with --no-inline (the default). Then the same
# program stripped, its debug info in a separate file found by
# .gnu_debuglink: the same lines.
lines_vs_truth() {
    local collector=$1 src=$HERE/../workloads/lines.c
    [ -r "$src" ] || fail "no source $src"
    marked() { grep -n "LINE:$1 " "$src" | cut -d: -f1; }
    local lines="plain=$(marked PLAIN) inlined=$(marked INLINED) call=$(marked CALL)"
    "$BIN/$collector" -e task-clock -s 2ms -o lines.sprof "$WORK/lines" -t 2 -o truth.txt
    for mode in inline no-inline; do
        "$BIN/sprof" --lines --$mode --format csv lines.sprof > lines-$mode.csv
        "$BIN/sprof" --$mode --format csv lines.sprof > flat-$mode.csv
    done
    python3 "$HERE/check_lines.py" truth.txt . "$collector" $lines
    # The pprof export per source line, read back by pprof itself (when there
    # is go): each --lines row is pprof's locations at that line, and pprof's
    # own -lines view shows the loop's line and the inlined helper's line
    # (its Line list names the helper inlined at the call).
    if command -v go > /dev/null; then
        "$BIN/sprof" --export pprof lines.pb.gz lines.sprof
        python3 "$HERE/check_pprof.py" lines.pb.gz flat-no-inline.csv pprof.csv lines-no-inline.csv ||
            fail "$collector: pprof does not read the lines back as sprof --lines gives them"
        local top
        top=$(go tool pprof -top -lines lines.pb.gz)
        grep -q "lines\.c:$(marked PLAIN)\$" <<<"$top" || fail "$collector: pprof -lines has no plain loop line: $top"
        grep -q "inlined_steps .*lines\.c:$(marked INLINED) (inline)\$" <<<"$top" ||
            fail "$collector: pprof -lines has no inlined line: $top"
    fi

    cp "$WORK/lines" lines-full
    objcopy --only-keep-debug lines-full lines.debug
    objcopy --strip-all --add-gnu-debuglink=lines.debug lines-full lines-stripped
    ! readelf -S lines-stripped | grep -Eq '\.(symtab|debug_line)' || fail "lines-stripped is not stripped"
    mkdir stripped
    "$BIN/$collector" -e task-clock -s 2ms -o stripped/lines.sprof ./lines-stripped -t 2 -o stripped/truth.txt
    cd stripped
    for mode in inline no-inline; do
        "$BIN/sprof" --lines --$mode --format csv lines.sprof > lines-$mode.csv
        "$BIN/sprof" --$mode --format csv lines.sprof > flat-$mode.csv
    done
    python3 "$HERE/check_lines.py" truth.txt . "$collector, stripped with a debug file" $lines
    cd ..
}

# own_ticks_kept COLLECTOR ARGS…: the program's own ITIMER_PROF ticks (1 s of
# CPU at 10 ms: 100 on a quiet machine) must be neither swallowed nor doubled
# by the collector. On a busy machine the kernel itself delivers fewer (a
# pending SIGPROF absorbs the next one: 64–73 of 100 measured beside two busy
# loops, without any profiler), so the truth is the program run alone, side
# by side: three rounds, each alone then under the collector; the medians
# agree within 15 %.
own_ticks_kept() {
    local alone=() under=() t
    for _ in 1 2 3; do
        alone+=("$("$WORK/sigprof_user" -t 1 -i 10 | awk '/^ticks/ {print $2}')")
        t=$("$@" "$WORK/sigprof_user" -t 1 -i 10 | awk '/^ticks/ {print $2}')
        under+=("$t")
    done
    python3 - "${alone[*]}" "${under[*]}" "$1" <<'PY' || fail "the program's own SIGPROF ticks differ under $(basename "$1")"
import statistics, sys
alone, under = [list(map(int, a.split())) for a in sys.argv[1:3]]
a, u = statistics.median(alone), statistics.median(under)
print(f"SIGPROF ticks of 100: alone {alone}, under {sys.argv[3].rsplit('/', 1)[-1]} {under}")
assert abs(u - a) <= 0.15 * a, f"median {u} under the collector, {a} alone"
PY
}

# call_paths_vs_truth COLLECTOR: the call_tree workload (a leaf under two
# callers in proportions they time themselves, recursion of known depth, a
# qsort callback) under COLLECTOR -g fp, judged by check_call_paths.py
# against what it measured. 3 s at 0.5 ms ticks: ~4,500 samples in the leaf,
# whose callers' shares then vary by ~0.6 points from run to run.
call_paths_vs_truth() {
    local collector=$1
    "$BIN/$collector" -g fp -s 500us -e task-clock -o calls.sprof "$WORK/call_tree" 3 truth.txt
    python3 "$HERE/check_call_paths.py" "$BIN/sprof" calls.sprof truth.txt "$collector" ||
        fail "$collector: call paths do not match what call_tree measured"
    "$BIN/sprof" calls.sprof --callers leaf --format csv | head -1 | grep -qx 'caller,samples,time_s,pct,task-clock' ||
        fail "--callers CSV header: $("$BIN/sprof" calls.sprof --callers leaf --format csv | head -1)"
    "$BIN/$collector" -e task-clock -o flat.sprof "$WORK/call_tree" 0.2 /dev/null
    local err rc=0
    err=$("$BIN/sprof" flat.sprof --callers leaf 2>&1) || rc=$?
    [ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == *"no call paths"*"-g fp"* ]] ||
        fail "a profile without call paths: exit $rc, '$err'"
}

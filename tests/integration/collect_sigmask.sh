# Both collectors on a program that keeps all signals blocked for half its
# run: the blocked half is charged to the function that ran it, not to where
# the mask was lifted (ticks carry their own PC and counts), and with a
# signal queue limit of 20 (ulimit -i) neither the program nor the monitor is
# killed by a SIGIO overflow; every tick that could not be taken is recorded
# as lost, never charged elsewhere.
source "$(dirname "$0")/common.sh" "$1"

check() {  # LABEL PROFILE TRUTH
    "$BIN/sprof" --format csv "$2" > "$1.csv"
    python3 - "$1.csv" "$3" "$1" <<'PY'
import csv, sys
report, truth_file, label = sys.argv[1:]
truth = {k: float(v) for k, v in (l.split() for l in open(truth_file) if l.strip())}
rows = {r["function"]: float(r["time_s"]) for r in csv.DictReader(open(report))}
total = sum(rows.values())
want = 100 * truth["masked_cpu_s"] / (truth["masked_cpu_s"] + truth["unmasked_cpu_s"])
got = 100 * rows.get("masked", 0) / total
elsewhere = 100 * sum(t for f, t in rows.items() if "sigmask" in f or "sigprocmask" in f) / total
print(f"{label}: masked() {got:.1f}% of the profile (truth {want:.1f}%), "
      f"at the unmasking {elsewhere:.1f}%, {total:.2f} s profiled of "
      f"{truth['masked_cpu_s'] + truth['unmasked_cpu_s']:.2f} s")
assert abs(got - want) <= 3, f"{label}: masked() share off by more than 3 points"
assert elsewhere <= 2, f"{label}: {elsewhere:.1f}% of the time charged to the unmasking"
PY
}

for collector in sprof_lib sprof_pt; do
    "$BIN/$collector" -e task-clock,page-faults -o $collector.sprof "$WORK/sigmask" -t 0.6 -n 2 -o $collector.txt
    check $collector $collector.sprof $collector.txt
    # A queue of 20 signals: the blocked 0.6 s hold 60 ticks.
    set +e
    (ulimit -i 20 && exec "$BIN/$collector" -e task-clock,page-faults -o $collector-i20.sprof \
        "$WORK/sigmask" -t 0.6 -n 2 -o $collector-i20.txt)
    rc=$?
    set -e
    [ $rc -eq 0 ] || fail "$collector with ulimit -i 20: exit status $rc (killed by a signal overflow?)"
    check $collector-i20 $collector-i20.sprof $collector-i20.txt
done
pass "blocked signals: time charged where it was spent, no death by a full signal queue"

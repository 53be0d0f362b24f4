# sprof_pt on two alternating functions of known CPU time and page faults,
# 4 software events on 2 slots: time shares and page faults against the
# workload's own accounting, with both estimators.
source "$(dirname "$0")/common.sh" "$1"

"$BIN/sprof_pt" -e task-clock,page-faults,context-switches,cpu-migrations --slots 2 -o alt.sprof \
    "$WORK/alternate" -t 3 -m 50 -o truth.txt
for est in coverage carry; do
    "$BIN/sprof" --format csv --estimator $est alt.sprof > report-$est.csv
    check_alternate report-$est.csv truth.txt "sprof_pt/$est"
done
pass "sprof_pt alternate: time shares and page faults match the truth"

# sprof_pt on two alternating functions of known CPU time and page faults,
# 4 software events on 2 slots: time shares and page faults against the
# workload's own accounting, with both estimators.
source "$(dirname "$0")/common.sh" "$1"
alternate_vs_truth sprof_pt 5
pass "sprof_pt alternate: time shares and page faults match the truth"

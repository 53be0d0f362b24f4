# sprof_lib on selfcount (every counting event this user has, on 2 slots):
# `sprof --ci` gives every estimate a 95 % interval, and the intervals cover
# the workload's own counts, for both estimators.
source "$(dirname "$0")/common.sh" "$1"
ci_vs_truth sprof_lib 4
pass "sprof_lib --ci: every estimate has an interval, and they cover the truth"

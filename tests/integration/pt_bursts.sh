# sprof_pt on two alternating functions, one of which faults in a burst at
# its entry or at its exit: the faults land on the function that faulted.
source "$(dirname "$0")/common.sh" "$1"
bursts_vs_truth sprof_pt
pass "sprof_pt bursts: faults at a call's entry or exit land on the function that faulted"

# Call paths under sprof_pt -g fp: callers' shares, recursion depth and the
# folded export against what call_tree measured (call_paths_vs_truth, common.sh).
source "$(dirname "$0")/common.sh" "$1"
call_paths_vs_truth sprof_pt
pass "sprof_pt: call paths as the program measured them"

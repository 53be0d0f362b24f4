# sprof_pt follows every thread: three threads working 1:2:3 (each in its own
# function) get time shares that match their own CPU-time accounting, and the
# profile lists all four threads.
source "$(dirname "$0")/common.sh" "$1"
threads_vs_truth sprof_pt 4
pass "sprof_pt samples every thread in proportion to its work"

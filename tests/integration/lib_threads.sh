# sprof_lib samples every thread on its own CPU time: three threads working in
# the ratio 1:2:3, each in its own function, against their own CPU clocks.
source "$(dirname "$0")/common.sh" "$1"
threads_vs_truth sprof_lib
pass "sprof_lib threads: per-thread sampling matches each thread's CPU time"

# Source lines under sprof_lib: a loop of known cost on a known line, an
# inlined function with --inline and --no-inline, and the same program
# stripped with its debug info in a separate file (lines_vs_truth, common.sh).
source "$(dirname "$0")/common.sh" "$1"
command -v objcopy > /dev/null || { echo "skipped: no objcopy (binutils)"; exit 77; }
lines_vs_truth sprof_lib
pass "sprof_lib: source lines and inlined functions as the program measured them"

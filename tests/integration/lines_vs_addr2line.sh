#!/usr/bin/env bash
# Source lines and inline chains against GNU addr2line -i and elfutils'
# eu-addr2line -i (check_addr2line.py says why both): for addresses spread over the code
# of libc (its separate debug file from libc6-dbg, found by build-id), of
# sprof's C++ analyzer and of a workload built with -g, sprof's resolution
# (source_lines_dump, the ObjectLines the collectors use) must give the same
# file:line and the same inlined calls, with their call sites, innermost first.
source "$(dirname "$0")/common.sh" "$1"
for tool in addr2line eu-addr2line; do
    command -v $tool > /dev/null || { echo "skipped: no $tool (Debian packages binutils, elfutils)"; exit 77; }
done

libc=$(ldd "$BIN/sprof" | awk '$1 ~ /^libc\.so/ {print $3}')
for object in "$libc" "$BIN/sprof" "$WORK/lines"; do
    python3 "$HERE/check_addr2line.py" "$BUILD/tests/source_lines_dump" "$object" ||
        fail "$(basename "$object"): sprof's lines differ from both addr2line's and eu-addr2line's"
done
pass "file:line and inline chains agree with addr2line -i or eu-addr2line -i at every address"

#!/usr/bin/env bash
# A minute of the libFuzzer target over the reader and every report
# (fuzz/fuzz_profile.cpp), from the seed corpus: any crash, sanitizer report,
# exception other than a one-line error, timeout or memory blow-up fails.
# Built with clang in BUILD/fuzz by fuzz_build, the fixture ctest runs first.
# Exit 77 (ctest SKIP) without clang and libFuzzer. `make fuzz` runs it for
# longer.
source "$(dirname "$0")/common.sh" "$1"
exec "$HERE/../../fuzz/run" -b "$BUILD/fuzz" "${FUZZ_SECONDS:-60}"

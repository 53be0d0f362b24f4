#!/usr/bin/env bash
# Builds the libFuzzer target (clang, ASan+UBSan over the whole analyzer) in
# BUILD/fuzz, as fuzz_profile's setup: the build takes minutes (7 on 2 idle
# CPUs), the fuzzing one, and each gets its own time limit
# (tests/CMakeLists.txt). Exit 77 (SKIP) without clang and libFuzzer.
source "$(dirname "$0")/common.sh" "$1"
exec "$HERE/../../fuzz/run" -b "$BUILD/fuzz" --build

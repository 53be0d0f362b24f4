#!/usr/bin/env bash
# Locality runs that cannot be: a program not built with sprof-cc, a line
# size that is not a power of two, a rate that is no number. Each is one
# line on stderr and exit status 2, before the program runs.
source "$(dirname "$0")/common.sh" "$1"
export LD_LIBRARY_PATH=$BUILD/lib  # see loc_sampled.sh
events=$(choose_events task-clock,page-faults task-clock,page-faults)

# expect_error WANT_LINE ARGS…: sprof_lib ARGS fails with exactly WANT_LINE, and the program never ran.
expect_error() {
    local want=$1 rc=0
    shift
    rm -f truth.txt
    "$BIN/sprof_lib" -e "$events" "$@" > out.txt 2> err.txt || rc=$?
    [ "$rc" -eq 2 ] || fail "sprof_lib $*: exit $rc, not 2 ($(cat err.txt))"
    [ "$(cat err.txt)" = "$want" ] || fail "sprof_lib $*: said '$(cat err.txt)', not '$want'"
    [ ! -e truth.txt ] || fail "sprof_lib $*: the program ran"
}

plain=$WORK/loc_sweep_plain
expect_error "sprof_lib: $plain was not built with sprof-cc or sprof-c++, so nothing reports its memory accesses (rebuild it with them, or with the flags of sprof-cc --print-cflags and --print-ldflags)" \
    --locality "$plain" -o truth.txt
expect_error "sprof_lib: $plain was not built with sprof-cc or sprof-c++, so nothing reports its memory accesses (rebuild it with them, or with the flags of sprof-cc --print-cflags and --print-ldflags)" \
    --locality=exact "$plain" -o truth.txt
pass "an unmodified program: one line that says to rebuild it, exit 2, not run"

expect_error "sprof_lib: invalid --line-size '96' (bytes, a power of two from 8 to 4096) (see sprof_lib --help)" \
    --locality --line-size 96 "$WORK/loc_sweep" -o truth.txt
expect_error "sprof_lib: invalid --locality 'often' (exact, or the mean accesses between samples: 1 to 1000000000) (see sprof_lib --help)" \
    --locality=often "$WORK/loc_sweep" -o truth.txt
expect_error "sprof_lib: --line-size and --locality-seed go with --locality" \
    --line-size 128 "$WORK/loc_sweep" -o truth.txt
pass "a line size not a power of two, a rate that is no number, a line size without --locality: one line, exit 2"

# The instrumented program runs normally without sprof_lib.
"$WORK/loc_sweep" -n 100 -s 10 -o truth.txt || fail "the instrumented program failed on its own"
[ -s truth.txt ] || fail "the instrumented program wrote no truth file on its own"
pass "the instrumented program runs on its own"

# sprof_pt and sprof_lib check everything a run needs before they start the
# program: a profile they cannot create (a missing directory, a current
# directory the user may not write), a program not found, an event this
# machine cannot count. Each is one line, a non-zero exit, and the program
# never ran: it would have left a file saying so. (Named pt_ for its run as
# nobody, whose unwritable directory is `/`.)
source "$(dirname "$0")/common.sh" "$1"
chmod 755 "$SCRATCH"
events=task-clock,page-faults
# The program: says it ran, then runs on for a while.
program=(sh -c 'touch "$0"; sleep 2' "$SCRATCH/ran")

# refused COLLECTOR RC PATTERN DIR ARGS…: the collector, run in DIR, exits RC
# with one line matching PATTERN (grep -E, whole line), and the program never ran.
refused() {
    local collector=$1 rc=$2 pattern=$3 dir=$4 got
    shift 4
    rm -f "$SCRATCH/ran"
    set +e
    (cd "$dir" && "$BIN/$collector" "$@" 2> "$SCRATCH/err.txt")
    got=$?
    set -e
    sleep 0.5  # a program left running would have said so by now
    [ "$got" = "$rc" ] || fail "$collector $* in $dir: exit $got, not $rc: $(cat "$SCRATCH/err.txt")"
    [ "$(wc -l < "$SCRATCH/err.txt")" = 1 ] && grep -Eqx -- "$pattern" "$SCRATCH/err.txt" ||
        fail "$collector $* in $dir: said '$(cat "$SCRATCH/err.txt")', not '$pattern'"
    [ ! -e "$SCRATCH/ran" ] || fail "$collector $* in $dir: the program ran"
    pass "$collector in $dir: '$(cat "$SCRATCH/err.txt")' (exit $rc), the program never started"
}

# A directory the user cannot write: `/` for a user; root writes anywhere a
# file system lets it, so /proc, where no file can be made.
if [ "$UNPRIVILEGED" = 1 ]; then unwritable=/; else unwritable=/proc; fi
why=$(touch "$unwritable/probe.sprof" 2>&1 | sed 's/.*: //') || true
[ -n "$why" ] || fail "could create a file in $unwritable"
for collector in sprof_pt sprof_lib; do
    refused "$collector" 2 "$collector: cannot create /nonexistent/x\.sprof: No such file or directory" "$SCRATCH" \
        -e "$events" -o /nonexistent/x.sprof "${program[@]}"
    refused "$collector" 2 "$collector: cannot create [a-z]+\.[0-9]+\.sprof: $why" "$unwritable" \
        -e "$events" "${program[@]}"
    refused "$collector" 2 "$collector: cannot create ${unwritable%/}/x\.sprof: $why" "$SCRATCH" \
        -e "$events" -o "${unwritable%/}/x.sprof" "${program[@]}"
    refused "$collector" 127 "$collector: cannot run './no-such-program': No such file or directory" "$SCRATCH" \
        -e "$events" ./no-such-program
    refused "$collector" 126 "$collector: cannot run '/etc/passwd': Permission denied" "$SCRATCH" \
        -e "$events" /etc/passwd
    refused "$collector" 2 "$collector: .*cycles.*" "$SCRATCH" -e task-clock,cycles "${program[@]}"
    # The same program, where all it needs is there: it runs and is profiled.
    rm -f ran
    "$BIN/$collector" -e "$events" -o "ran-$collector.sprof" "${program[@]}" || fail "$collector failed on the program"
    [ -e ran ] && [ -s "ran-$collector.sprof" ] || fail "$collector: the program did not run, or left no profile"
done
pass "both collectors run the program where nothing is missing"

# sprof_lib preloads its runtime: a statically linked program has no loader
# to do it, and the loader ignores LD_PRELOAD for a set-user-ID program run
# by another user. sprof_lib says so and runs neither; sprof_pt profiles the
# static one.
cat > static.c <<'C'
#include <stdio.h>
int main(int argc, char **argv) { FILE *f = fopen(argv[1], "w"); return !f || fclose(f); }
C
if cc -static -O2 static.c -o static-program 2> /dev/null; then
    refused sprof_lib 2 "sprof_lib: $SCRATCH/static-program is statically linked, so no loader preloads the runtime into it \(profile it with sprof_pt\)" \
        "$SCRATCH" -e "$events" ./static-program "$SCRATCH/ran"
    "$BIN/sprof_pt" -e "$events" -o static.sprof ./static-program "$SCRATCH/ran"
    [ -e ran ] && "$BIN/sprof" --info static.sprof | grep -q "ended *exit 0" || fail "sprof_pt did not profile the static program"
    pass "sprof_pt profiles the static program sprof_lib refuses"
else
    echo "note: no static C library here (libc6-dev's libc.a): the static case is not tried"
fi
setuid=$(find /usr/bin -maxdepth 1 -perm -4000 -user root -name passwd 2> /dev/null)
if [ "$UNPRIVILEGED" = 1 ] && [ -n "$setuid" ]; then
    refused sprof_lib 2 "sprof_lib: $setuid is set-user-ID or set-group-ID, and the loader ignores LD_PRELOAD for it \(profile it with sprof_pt, as a user who may trace it\)" \
        "$SCRATCH" -e "$events" "$setuid" < /dev/null
fi

# sprof_pt follows fork and exec: the parent and the child each get a profile
# (%p); the child's profile switches to the exec'd program's symbols.
# With --no-follow only the parent is profiled.
source "$(dirname "$0")/common.sh" "$1"

"$BIN/sprof_pt" -e task-clock -o fe.%p.sprof "$WORK/forkexec" -t 0.5 -- "$WORK/alternate" -t 1 -o /dev/null > out.txt
child=$(awk '/^child/ {print $2}' out.txt)
profiles=(fe.*.sprof)
[ ${#profiles[@]} -eq 2 ] || fail "expected 2 profiles, found: ${profiles[*]}"
[ -f "fe.$child.sprof" ] || fail "no profile for the child $child: ${profiles[*]}"
parent=$(ls fe.*.sprof | grep -v "fe.$child.sprof")
"$BIN/sprof" --format csv "$parent" > parent.csv
"$BIN/sprof" --format csv "fe.$child.sprof" > child.csv
samples() { awk -F, -v f="$2" '$1 == f {print $3}' "$1"; }
[ "$(samples parent.csv parent_work)" -ge 30 ] || fail "parent_work: $(samples parent.csv parent_work) samples in the parent"
[ -z "$(samples parent.csv heavy)" ] || fail "the parent's profile has the child's exec'd functions"
[ "$(samples child.csv child_work)" -ge 30 ] || fail "child_work before the exec: $(samples child.csv child_work) samples"
[ "$(samples child.csv heavy)" -ge 40 ] && [ "$(samples child.csv light)" -ge 10 ] ||
    fail "after the exec: heavy $(samples child.csv heavy), light $(samples child.csv light) samples"

"$BIN/sprof_pt" --no-follow -e task-clock -o nf.%p.sprof "$WORK/forkexec" -t 0.3 -- true > /dev/null
profiles=(nf.*.sprof)
[ ${#profiles[@]} -eq 1 ] || fail "--no-follow wrote ${#profiles[@]} profiles"
pass "sprof_pt follows fork and exec (and not with --no-follow)"

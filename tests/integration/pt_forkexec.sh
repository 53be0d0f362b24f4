# sprof_pt follows fork and exec: the parent and the child each get a profile
# (%p); the child's profile switches to the exec'd program's symbols.
# With --no-follow only the parent is profiled.
source "$(dirname "$0")/common.sh" "$1"

forkexec_vs_truth sprof_pt

"$BIN/sprof_pt" --no-follow -e task-clock -o nf.%p.sprof "$WORK/forkexec" -t 0.3 -- true > /dev/null
profiles=(nf.*.sprof)
[ ${#profiles[@]} -eq 1 ] || fail "--no-follow wrote ${#profiles[@]} profiles"
pass "sprof_pt follows fork and exec (and not with --no-follow)"

# Every measured figure README.md quotes is the one bench/results holds: the
# markers bench/run --assemble fills (bench/figures.py) agree with the
# fragments; and a figure changed by hand is caught, naming it.
source "$(dirname "$0")/common.sh" "$1"
SRC=$(cd "$HERE/../.." && pwd)
[ -f "$SRC/bench/figures.py" ] || { echo "skipped: no bench/ here"; exit 77; }
python3 "$SRC/bench/figures.py" --check "$SRC/README.md" || fail "README.md's figures are not bench/results'"
count=$(grep -o '<!-- bench:' "$SRC/README.md" | wc -l)
[ "$count" -ge 30 ] || fail "README.md marks only $count figures"
pass "README.md's $count figures are bench/results'"

# The check can fail: one figure changed, one marker naming nothing.
sed '0,/<!-- bench:overhead:lib_10ms -->[^<]*</s//<!-- bench:overhead:lib_10ms -->+0.9 %</' "$SRC/README.md" > changed.md
grep -q 'lib_10ms -->+0.9 %' changed.md || fail "could not change a figure for the check"
set +e
python3 "$SRC/bench/figures.py" --check changed.md 2> changed.err
rc=$?
set -e
[ $rc = 1 ] && grep -q "changed.md says '+0.9 %' for overhead:lib_10ms" changed.err ||
    fail "a changed figure passed (exit $rc): $(cat changed.err)"
echo 'x <!-- bench:overhead:no_such -->1<!-- /bench -->' > unknown.md
set +e
python3 "$SRC/bench/figures.py" --check unknown.md 2> unknown.err
rc=$?
set -e
[ $rc = 1 ] && grep -q "exports no 'no_such'" unknown.err || fail "an unknown figure passed (exit $rc): $(cat unknown.err)"
pass "a figure changed by hand and one that names nothing are caught"

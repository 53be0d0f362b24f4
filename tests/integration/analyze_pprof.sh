#!/usr/bin/env bash
# `sprof --export pprof` read back by pprof itself (go tool pprof) on
# synthetic profiles of known content: every function's samples, CPU time
# and events as the flat report gives them, the fixture's numbers by hand,
# and pprof's own views (-top by any event). SKIP (77) without go.
set -euo pipefail
build=${1:?usage: analyze_pprof.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || { echo "skipped: no go (go tool pprof)"; exit 77; }
sprof=$build/bin/sprof
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work  # pprof may keep state under $HOME/pprof

for fixture in small unmapped phases; do  # unmapped: a location in no mapping
  "$build/tests/sprof_synth" $fixture "$work/$fixture.sprof"
  "$sprof" --export pprof "$work/$fixture.pb.gz" "$work/$fixture.sprof"
  [[ $(head -c 2 "$work/$fixture.pb.gz" | od -An -tx1 | tr -d ' ') == 1f8b ]] || { echo "FAIL: $fixture: not gzip"; exit 1; }
  "$sprof" --format csv "$work/$fixture.sprof" > "$work/$fixture-flat.csv"
  python3 "$here/check_pprof.py" "$work/$fixture.pb.gz" "$work/$fixture-flat.csv" "$work/$fixture-pprof.csv"
done

# By hand (tests/unit/test_analyze_report.cpp): compute(int) 100 samples, 1 s,
# 125 page faults, its context switches unknown; main 20, 0.2 s, 20 faults,
# 2 switches; memcpy 20, 0.2 s, 100 faults, 6 switches; the faults × 22/21,
# their share of the run's total (130.95, 20.95, 104.76; pprof's integers).
python3 - "$work/small-pprof.csv" <<'PY'
import csv, sys
rows = {r["function"]: [r["samples"], r["time_s"], r["task-clock"], r["page-faults"], r["context-switches"]]
        for r in csv.DictReader(open(sys.argv[1]))}
want = {"compute(int)": ["100", "1.0", "1000000000", "131", "0"], "main": ["20", "0.2", "200000000", "21", "2"],
        "memcpy": ["20", "0.2", "200000000", "105", "6"]}
assert rows == want, rows
PY
# pprof's own ranking by an event: memcpy has 105 of the 257 page faults.
top=$(go tool pprof -top -sample_index=page-faults "$work/small.pb.gz")
grep -Eq '^ +105 +40\.86% .* memcpy$' <<<"$top" || { echo "FAIL: pprof -top by page-faults: $top"; exit 1; }
grep -q 'Showing nodes accounting for 257, 100% of 257 total' <<<"$top" || { echo "FAIL: pprof's page-fault total: $top"; exit 1; }
top=$(go tool pprof -top "$work/small.pb.gz")  # the default sample type: cpu
grep -Eq '^ +1000ms +71\.43% .* compute\(int\)$' <<<"$top" || { echo "FAIL: pprof -top by cpu: $top"; exit 1; }
echo "analyze_pprof: pprof reads the exports as the flat report gives them"

# Checksums in a real profile (format 1.12): a byte damaged anywhere in what
# sprof_lib wrote is an error at its record, --salvage reads around it, a
# cut-short file and the same profile without checksums (1.11) are read as
# before (check_crc.py); and --phases on a run of few intervals says how many and how
# to get more.
source "$(dirname "$0")/common.sh" "$1"
cd "$SCRATCH"

"$BIN/sprof_lib" -q -H 5 -o run.sprof "$WORK/phases" -r 2 -l 0.15 -o truth.txt
# The seed changes from run to run (told, to repeat one): the offsets are not tuned.
seed=${SPROF_CRC_SEED:-$RANDOM}
echo "seed $seed"
python3 "$HERE/check_crc.py" "$BIN/sprof" run.sprof "$SCRATCH" 40 "$seed" || fail "checksums (seed $seed)"
pass "sprof_lib's profile: every checksum right; damage refused at its record and salvaged; as 1.11 and cut read as before"

# A run of 3 intervals of 5 samples: one phase, and a note that says so.
"$BIN/sprof_lib" -q -H 5 -o short.sprof "$WORK/phases" -r 1 -l 0.05 -o short-truth.txt
rows=$(python3 - short.sprof <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos, seqs = 16, set()
while pos + 8 <= len(b):
    kind, length = struct.unpack_from('<II', b, pos)
    if kind == 5:
        seqs.add(struct.unpack_from('<I', b, pos + 12)[0])
    pos += 8 + length
print(len(seqs))
PY
)
"$BIN/sprof" --phases short.sprof > phases.txt 2> err.txt || fail "--phases on a short run: $(cat err.txt)"
if [ "$rows" -lt 6 ]; then
    plural=s; [ "$rows" -eq 1 ] && plural=
    grep -q "^only $rows histogram interval$plural: two phases need 6 (--min-phase 3 each), so this is one phase; profile with shorter intervals for more (-H N" phases.txt ||
        fail "--phases on $rows intervals: no note saying so: $(head -3 phases.txt)"
    pass "--phases on a run of $rows intervals says so and how to get more"
else
    echo "the short run made $rows intervals (a busy machine): the note is not due"
    grep -q "^only" phases.txt && fail "--phases on $rows intervals: a note of a short run"
    pass "--phases on a run of $rows intervals: no note, as due"
fi

#!/usr/bin/env python3
"""Damage to a real profile is told from a cut (docs/FORMAT.md, format 1.12).

usage: check_crc.py SPROF PROFILE SCRATCH_DIR ROUNDS SEED

Checks, with its own reading of the format:
* every record of PROFILE ends with the CRC32C of its bytes (computed here
  from the polynomial's definition), and HEADER repeats the file header's minor;
* a byte changed at ROUNDS random offsets (SEED) is refused by `sprof` with
  exit 1 and one line naming the record that holds the byte (or the part of
  the file header); `sprof --salvage` reads the file with exit 0 and a
  warning naming the same record, and when that record was one INTERVAL,
  its report is the one of the profile without that record and without
  source lines (which salvage drops);
* written as format 1.11 (without checksums) it gives the same report;
* the file cut inside its last records is read with the "truncated" warning
  and exit 0, as before checksums.
"""
import random
import struct
import subprocess
import sys


def crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def records(b):
    """(offset, type, length) of each record of a little-endian file."""
    out, pos = [], 16
    while pos + 8 <= len(b):
        kind, length = struct.unpack_from('<II', b, pos)
        out.append((pos, kind, length))
        pos += 8 + length
    assert pos == len(b), f'records end at {pos}, the file at {len(b)}'
    return out


def sprof(sprof_bin, *args):
    p = subprocess.run([sprof_bin, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    sprof_bin, profile, scratch, rounds, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    good = open(profile, 'rb').read()
    assert good[:8] == b'SPROFILE' and struct.unpack_from('<I', good, 8)[0] == 0x01020304, 'not a little-endian profile'
    minor = struct.unpack_from('<H', good, 14)[0]
    assert minor >= 12, f'format 1.{minor}: written without checksums'
    recs = records(good)
    for pos, kind, length in recs:
        covered = good[pos:pos + 8 + length - 4]
        stored = struct.unpack_from('<I', good, pos + 8 + length - 4)[0]
        assert stored == crc32c(covered), f'record of type {kind} at byte {pos}: checksum {stored:#x}, not {crc32c(covered):#x}'
    h_pos, h_kind, h_len = recs[0]
    assert h_kind == 1 and struct.unpack_from('<H', good, h_pos + 8 + h_len - 6)[0] == minor, 'HEADER does not repeat the minor'
    print(f'{len(recs)} records, every checksum right')

    _, want_flat, _ = sprof(sprof_bin, '--format', 'csv', profile)
    starts = [r[0] for r in recs]
    rng = random.Random(seed)
    damaged = f'{scratch}/damaged.sprof'
    checked_reports = 0
    for _ in range(rounds):
        i = rng.randrange(len(good))
        bad = bytearray(good)
        bad[i] ^= rng.randrange(1, 256)
        open(damaged, 'wb').write(bad)
        rc, _, err = sprof(sprof_bin, damaged)
        lines = err.splitlines()
        where = f'byte {i} of {len(good)}'
        assert rc == 1 and len(lines) == 1, f'{where}: exit {rc}, stderr {err!r}'
        if i < 16:
            part = ('bad magic' if i < 8 else 'unknown byte-order tag' if i < 12 else 'profile format version' if i < 14
                    else 'the file header at byte 14 says')
            assert part in lines[0], f'{where}: {lines[0]!r} does not say {part!r}'
            continue
        r = max(s for s in starts if s <= i)
        kind = next(k for s, k, _ in recs if s == r)
        assert f' record at byte {r} (' in lines[0] and lines[0].startswith(f'sprof: {damaged}: corrupt '), \
            f'{where} (record of type {kind} at {r}): {lines[0]!r}'
        if r == starts[0]:
            continue  # nothing is read without the HEADER, --salvage or not
        rc, flat, err = sprof(sprof_bin, '--salvage', '--format', 'csv', damaged)
        assert rc == 0, f'{where}: --salvage exit {rc}: {err!r}'
        warning = next((w for w in err.splitlines() if 'salvaged: passed over' in w), '')
        assert f'corrupt record at byte {r} (' in warning or f'corrupt records at byte {r} (' in warning, \
            f'{where}: --salvage warning {err!r}'
        size = 8 + next(l for s, _, l in recs if s == r)
        if kind == 5 and f'at byte {r} ({size} bytes)' in warning and 'passed over 1 ' in warning:
            # What salvage keeps: every other record, and no source lines (it drops them).
            without = f'{scratch}/without.sprof'
            kept = [good[s:s + 8 + l] for s, k, l in recs if s != r and k not in (18, 19)]
            open(without, 'wb').write(good[:16] + b''.join(kept))
            _, want, _ = sprof(sprof_bin, '--format', 'csv', without)
            assert flat == want, f'{where}: --salvage reads otherwise than the profile without the record'
            checked_reports += 1
    print(f'{rounds} damaged bytes refused at their record and salvaged; '
          f'{checked_reports} salvaged reports equal the profile without the damaged INTERVAL')

    # The same profile as a 1.11 writer wrote it: no checksums, no minor in HEADER.
    old = f'{scratch}/old.sprof'
    body = b''.join(struct.pack('<II', k, l - 4 - (2 if k == 1 else 0)) + good[s + 8:s + 8 + l - 4 - (2 if k == 1 else 0)]
                    for s, k, l in recs)
    open(old, 'wb').write(good[:14] + struct.pack('<H', 11) + body)
    rc, old_flat, err = sprof(sprof_bin, '--format', 'csv', old)
    assert rc == 0 and old_flat == want_flat, f'format 1.11: exit {rc}, {err!r}, or another report'
    print('as format 1.11 (no checksums): the same report')

    cut = f'{scratch}/cut.sprof'
    for _ in range(5):
        r_pos, _, r_len = recs[rng.randrange(len(recs) // 2, len(recs))]
        n = r_pos + rng.randrange(1, 8 + r_len)
        open(cut, 'wb').write(good[:n])
        rc, _, err = sprof(sprof_bin, cut)
        assert rc == 0 and 'truncated after' in err and 'corrupt' not in err, f'cut at {n}: exit {rc}, {err!r}'
    print('cut short: read with the truncated warning')


if __name__ == '__main__':
    main()

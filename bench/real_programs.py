"""Real programs nobody here wrote, for the locality benchmarks: Debian's
source packages of bzip2 and sqlite3, fetched by scripts/fetch-sources at
bench time (never committed) and built twice from the same sources: with
`sprof-cc` and with plain `cc`, both -O2. Built once per build directory
(BUILD_DIR/bench-programs), reused by every section that needs them.

Each program's library code is compiled into the program itself: Debian's
bzip2 links the system's libbz2.so, which the compiler never instruments,
so its accesses would be invisible to sprof.
"""
import os
import random
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Program:
    """A workload: name, the plain and the instrumented binary, its arguments,
    the arguments of a smaller input for exact mode, and what it does."""

    def __init__(self, name, plain, instrumented, args, exact_args, what):
        self.name, self.plain, self.instrumented = name, plain, instrumented
        self.args, self.exact_args, self.what = args, exact_args, what


def _run(cmd, cwd=None):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _text(path, size, seed):
    """Pseudo-text of `size` bytes: words of 2–9 letters from a vocabulary
    of 3,000, so a compressor has something to find."""
    if os.path.exists(path):
        return
    rng = random.Random(seed)
    words = ["".join(rng.choice("etaoinshrdlucmfwypvbgkqjxz") for _ in range(rng.randint(2, 9)))
             for _ in range(3000)]
    out, n = [], 0
    while n < size:
        w = rng.choice(words)
        out.append(w)
        n += len(w) + 1
    with open(path, "w") as f:
        f.write(" ".join(out)[:size])


def _sql(path, rows):
    """A table of `rows` rows, an index, a scan, a grouping and a self-join."""
    with open(path, "w") as f:
        f.write(f"""CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {rows})
INSERT INTO t SELECT i, hex(randomblob(8)), random() % 1000 FROM s;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(c) FROM t WHERE b > '8';
SELECT c % 10, count(*) FROM t GROUP BY c % 10 ORDER BY 1;
SELECT count(*) FROM t x JOIN t y ON x.a = y.a + 1 WHERE x.c > y.c;
""")


def _newer(path, than):
    """Whether `path` exists and is newer than every existing file of `than`."""
    if not os.path.exists(path):
        return False
    return all(os.path.getmtime(path) > os.path.getmtime(t) for t in than if os.path.exists(t))


def _build_twice(bin_dir, out_dir, name, sources, flags, cwd):
    """(plain, instrumented) binaries of `sources` compiled in `cwd`; the
    instrumented one again whenever sprof-cc's specs or plugin changed."""
    plain, instrumented = f"{out_dir}/{name}_plain", f"{out_dir}/{name}"
    build = os.path.dirname(bin_dir)
    instrumentation = [f"{build}/share/sprof/sprof.specs", f"{build}/lib/sprof/sprof_access_plugin.so"]
    for compiler, binary, inputs in (("cc", plain, []), (f"{bin_dir}/sprof-cc", instrumented, instrumentation)):
        if not _newer(binary, inputs):
            _run([compiler, "-O2", "-g", *flags, *sources, "-o", binary + ".tmp", "-lm"], cwd=cwd)
            os.rename(binary + ".tmp", binary)
    return plain, instrumented


def prepare(build_dir):
    """Fetches, builds and makes inputs for the real programs; returns Programs."""
    bin_dir = f"{build_dir}/bin"
    out = f"{build_dir}/bench-programs"
    os.makedirs(out, exist_ok=True)
    fetched = subprocess.run([f"{REPO}/scripts/fetch-sources", f"{out}/src", "bzip2", "sqlite3"], check=True,
                             capture_output=True, text=True).stdout.split()
    bzip2_src, sqlite_src = fetched

    bzip2 = _build_twice(bin_dir, out, "bzip2",
                         ["bzip2.c", "blocksort.c", "huffman.c", "crctable.c", "randtable.c", "compress.c",
                          "decompress.c", "bzlib.c"], ["-D_FILE_OFFSET_BITS=64"], bzip2_src)
    # sqlite3's one-file amalgamation and its shell, made by its own build
    # (needs tclsh); then compiled like the other programs.
    amalgamation = f"{sqlite_src}/bld"
    if not os.path.exists(f"{amalgamation}/sqlite3.c"):
        os.makedirs(amalgamation, exist_ok=True)
        _run(["../configure", "--disable-tcl", "--disable-readline"], cwd=amalgamation)
        _run(["make", "sqlite3.c", "shell.c"], cwd=amalgamation)
    sqlite3 = _build_twice(bin_dir, out, "sqlite3", ["shell.c", "sqlite3.c"],
                           ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION", "-I."], amalgamation)

    _text(f"{out}/text-2M.txt", 2_000_000, 1)
    _text(f"{out}/text-500K.txt", 500_000, 2)
    _sql(f"{out}/rows-50000.sql", 50_000)
    _sql(f"{out}/rows-10000.sql", 10_000)
    return [
        Program("bzip2", *bzip2, ["-c", "-9", f"{out}/text-2M.txt"], ["-c", "-9", f"{out}/text-500K.txt"],
                f"Debian's bzip2 {os.path.basename(bzip2_src).split('-')[1]} compressing 2 MB of pseudo-text at "
                "-9 (block sorting of 900 kB blocks)"),
        Program("sqlite3", *sqlite3, [":memory:", f".read {out}/rows-50000.sql"],
                [":memory:", f".read {out}/rows-10000.sql"],
                f"Debian's sqlite3 {os.path.basename(sqlite_src).split('-')[1]} shell: 50,000 rows inserted, "
                "indexed, scanned, grouped and self-joined in memory"),
    ]

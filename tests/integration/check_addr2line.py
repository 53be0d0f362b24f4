"""Compares sprof's source lines of addresses in one object with two
independent readers of the same DWARF: GNU addr2line -i (binutils, its own
reader) and elfutils' eu-addr2line -i (libdw, but dwarf_getscopes per
address where sprof indexes each unit once). Each has gaps of its own
(eu-addr2line finds no scopes in a function's cold part or a lambda's
static invoker and prints the symbol; binutils 2.40 names the wrong file of
some DWARF 5 line tables, glibc's bsearch.c for bits/stdlib-bsearch.h), so
at every address sprof must give what at least one of them gives: the
same file:line and the same inlined calls with their call sites.

usage: check_addr2line.py SOURCE_LINES_DUMP OBJECT

The addresses: up to 1,500 drawn (fixed seed) inside the object's function
symbols (nm, sizes known), so most lie in code with lines and many in
inlined code."""
import os
import random
import subprocess
import sys

dump, obj = sys.argv[1], sys.argv[2]
name = os.path.basename(obj)


def functions():
    out = subprocess.run(["nm", "-S", "--defined-only", obj], capture_output=True, text=True).stdout
    if not out.strip():  # stripped (libc): its dynamic symbols
        out = subprocess.run(["nm", "-D", "-S", "--defined-only", obj], capture_output=True, text=True).stdout
    spans = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW" and int(f[1], 16) > 0:
            spans.add((int(f[0], 16), int(f[1], 16)))
    return sorted(spans)


def same_file(ours, theirs):
    """addr2line prints the name as DWARF has it, joined to a relative
    compilation directory (Debian's libc: "./csu/../csu/libc-start.c");
    sprof joins it to the compilation directory too and drops the "." and
    ".." steps, so the two agree once normalised, or sprof's ends with
    addr2line's where addr2line left the name relative. "??": the tool
    found no file there, a gap of its own as a line 0 is (same_line in
    agrees): binutils 2.40 gives "??:?" for an instruction of CLI11's ltrim
    lambda inlined into std::find_if, whose line eu-addr2line and sprof
    both read from the line table (the inlined calls eu-addr2line stops
    short of, binutils and sprof give alike)."""
    if theirs == "??":
        return True
    theirs = os.path.normpath(theirs)
    return ours == theirs or (not os.path.isabs(theirs) and ours.endswith("/" + theirs))


def position(text):
    """FILE:LINE[:COLUMN] -> (file, line)."""
    parts = text.rsplit(":", 2)
    if len(parts) == 3 and parts[2].isdigit() and parts[1].isdigit():
        return parts[0], int(parts[1])
    file, line = text.rsplit(":", 1)
    return file, int(line) if line.isdigit() else 0


def reference(tool, addresses):
    """Per address: the instruction's own (file, line) and its inlined calls,
    innermost first, as `tool` -a -i -f prints them: the address, then per
    scope from the innermost out a function line and a position line; the
    first position is the instruction's own, each later one the call site
    of the scope before it, inside the scope it names. eu-addr2line writes
    the innermost function line as "F inlined at CALL_SITE in …" (and, where
    the function around has no range of its own there, stops after it)."""
    out = subprocess.run([tool, "-a", "-i", "-f", "-e", obj] + [hex(a) for a in addresses],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    blocks, result = [], {}
    for line in out:
        if line.startswith("0x") and len(blocks) < len(addresses) and int(line, 16) == addresses[len(blocks)]:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    for block in blocks:
        functions, positions = block[1::2], [position(p) for p in block[2::2]]
        if " inlined at " in functions[0]:
            callee, rest = functions[0].split(" inlined at ", 1)
            chain = [(callee, position(rest.rsplit(" in ", 1)[0]))] + list(zip(functions[1:-1], positions[2:]))
        else:
            chain = list(zip(functions[:-1], positions[1:]))
        result[int(block[0], 16)] = (positions[0], chain)
    return result


def agrees(mine, theirs, innermost_named=True):
    """The same file:line and the same inlined calls (function, call site).
    innermost_named False: the innermost call's function name is not
    compared (binutils gives there the symbol around the address where
    the DWARF function has no linkage name, a lambda's operator())."""
    (file, line), chain = mine
    (their_file, their_line), their_chain = theirs
    same_line = lambda ours, theirs: ours == theirs or theirs == 0  # 0: the tool found no line there
    return same_file(file, their_file) and same_line(line, their_line) and len(chain) == len(their_chain) and all(
        (f == tf or (k == 0 and not innermost_named)) and same_file(cf, tcf) and same_line(cl, tcl)
        for k, ((f, (cf, cl)), (tf, (tcf, tcl))) in enumerate(zip(chain, their_chain)))


def ours(addresses):
    out = subprocess.run([dump, obj] + [hex(a) for a in addresses], capture_output=True, text=True,
                         check=True).stdout.split("\n\n")
    result = {}
    for block in out:
        lines = block.strip().splitlines()
        if not lines:
            continue
        address, pos = lines[0].split(" ", 1)
        chain = []
        for line in lines[1:]:
            function, call = line.split(" @ ", 1)
            chain.append((function, position(call)))
        result[int(address, 16)] = (position(pos), chain)
    return result


rng = random.Random(7)
spans = functions()
assert spans, f"{name}: no function symbols"
addresses = sorted({start + rng.randrange(size) for start, size in rng.sample(spans, min(1500, len(spans)))})
mine = ours(addresses)
gnu, elfutils = reference("addr2line", addresses), reference("eu-addr2line", addresses)
bad, with_lines, inlined, both = [], 0, 0, 0
for a in addresses:
    with_lines += mine[a][0][1] > 0
    inlined += bool(mine[a][1])
    by_gnu, by_elfutils = agrees(mine[a], gnu[a], innermost_named=False), agrees(mine[a], elfutils[a])
    both += by_gnu and by_elfutils
    if not (by_gnu or by_elfutils):
        bad.append(f"{a:#x}: sprof {mine[a]}, addr2line {gnu[a]}, eu-addr2line {elfutils[a]}")
print(f"{name}: {len(addresses)} addresses, {with_lines} with lines, {inlined} in inlined code; "
      f"{both} as both tools have them, {len(bad)} as neither")
for b in bad[:10]:
    print("  " + b)
assert with_lines > len(addresses) // 2, "too few addresses with lines to compare"
assert inlined > 0, "no address in inlined code: the inline chains went unchecked"
assert not bad

#!/usr/bin/env python3
"""Checks the emulated-PMU guest's profiles of tests/pmu/known_loops (read by
the host's sprof) against what the program knows about itself. Under QEMU's
-icount shift=N every instruction takes 2^N cycles and 2^N ns of CPU time.

  counts PROFILE TRUTH --expect EVENT=FACTOR ... [--pct 2] [--cover] [--cpi C]
         [--self-sampled EVENT ...]
      each function's EVENT is FACTOR x its instructions (the truth file's
      FUNCTION_instructions lines) within --pct percent; --cover: its 95 %
      interval holds that; --cpi: cycles/instructions within 1 % of C;
      --self-sampled: `sprof --info` says EVENT was attributed by its own
      samples, and the run lost none of it: all functions together hold at
      least the loops' instructions (FACTOR x), which the rest of the run
      (start, exit, the runtime's handler) adds to
  phases PROFILE TRUTH --shift N
      `known_loops mix`: the phases alternate between four() and
      syscall_phase() as often as the program did; every phase's CPI is 2^N
      (TCG's -icount charges every instruction alike), while the user-space
      instructions per ns of CPU time tell the phases apart: 1/2^N in the
      integer phase, a fraction of that in the syscall phase
  overhead HW.sprof HW.truth SW.sprof SW.truth BARE.truth
      CPU time per sample that sprof_lib adds on the hardware path and on the
      software path (the program's cpu_ns over its run alone), and their ratio

Prints what it measured; exits non-zero naming what is off.
"""
import argparse
import csv
import io
import re
import subprocess
import sys


def sprof(binary, *args):
    out = subprocess.run([binary, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"sprof {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def read_truth(path):
    return {key: float(value) for key, value in (line.split()[:2] for line in open(path) if line.strip())}


def counts(a):
    truth = {k[: -len("_instructions")]: v for k, v in read_truth(a.truth).items() if k.endswith("_instructions")}
    if not truth:
        sys.exit(f"{a.truth}: no FUNCTION_instructions lines")
    rows = {r["function"]: r for r in csv.DictReader(io.StringIO(sprof(a.sprof, "--format", "csv", "--ci", a.profile)))}
    errors, lines = [], []
    if a.self_sampled:
        info = sprof(a.sprof, "--info", a.profile)
        factors = dict(spec.rsplit("=", 1) for spec in a.expect)
        for event in a.self_sampled:
            if not re.search(rf"[:,] {re.escape(event)} \([^)]*attributed by its own samples", info):
                said = next((l.strip() for l in info.splitlines() if l.lstrip().startswith("events")), "no events line")
                errors.append(f"{event} not attributed by its own samples ({said})")
            want = float(factors[event]) * sum(truth.values())
            run = sum(float(r[event]) for r in rows.values() if r.get(event, "") != "")
            lines.append(f"run {event} {run:.4g} ({100 * (run - want) / want:+.2f}% of the loops' {want:.4g})")
            if run < want * (1 - a.pct / 100):
                errors.append(f"the run's {event} {run:.4g} is short of the loops' {want:.4g}: events lost")
    for fn, instructions in sorted(truth.items()):
        row = rows.get(fn)
        if row is None:
            sys.exit(f"function {fn} missing from the report of {a.profile} (have {sorted(rows)})")
        for spec in a.expect:
            event, factor = spec.rsplit("=", 1)
            want = float(factor) * instructions
            if row.get(event, "") == "":
                errors.append(f"{fn} {event} unknown")
                continue
            got = float(row[event])
            if want == 0:  # an event the PMU implements as always 0
                lines.append(f"{fn} {event} {got:.4g}")
                if got != 0:
                    errors.append(f"{fn} {event} {got:.4g}, not 0")
                continue
            err = 100 * (got - want) / want
            text = f"{fn} {event} {got:.4g} ({err:+.2f}% of {want:.4g})"
            if abs(err) > a.pct:
                errors.append(f"{text} off by more than {a.pct}%")
            if a.cover:
                low, high = float(row[event + "_low"]), float(row[event + "_high"])
                text += f" [{low:.4g}, {high:.4g}]"
                if not low <= want <= high:
                    errors.append(f"{fn} {event}: 95% interval [{low:.4g}, {high:.4g}] misses {want:.4g}")
            lines.append(text)
        if a.cpi is not None:
            cpi = float(row["cycles"]) / float(row["instructions"])
            lines.append(f"{fn} CPI {cpi:.4f}")
            if abs(cpi - a.cpi) > a.cpi / 100:
                errors.append(f"{fn} CPI {cpi:.4f} off {a.cpi} by more than 1%")
    return lines, errors


def phases(a):
    rounds = int(read_truth(a.truth)["phases"]) // 2
    table = sprof(a.sprof, "--phases", "--format", "csv", "--rate", "user_ipns=instructions/task-clock", a.profile)
    rows = list(csv.DictReader(io.StringIO(table)))
    lines = [f"{r['label']} {r['dominant_function']} {float(r['end_s']) - float(r['start_s']):.3f}s "
             f"CPI {float(r['CPI']):.4f} user_ipns {float(r['user_ipns']):.4f}" for r in rows]
    errors = []
    order = [r["dominant_function"] for r in rows]
    want = ["four", "syscall_phase"] * rounds
    if order != want:
        errors.append(f"phases {order}, want {want}")
    cycle = 2 ** a.shift
    ipns = {fn: [float(r["user_ipns"]) for r in rows if r["dominant_function"] == fn] for fn in set(want)}
    for r in rows:
        if abs(float(r["CPI"]) - cycle) > cycle / 100:
            errors.append(f"phase {r['phase']} CPI {r['CPI']}, not {cycle}")
    if ipns.get("four") and min(ipns["four"]) < 0.9 / cycle:
        errors.append(f"integer phases at {ipns['four']} user instructions per ns, want ~{1 / cycle}")
    if ipns.get("syscall_phase") and max(ipns["syscall_phase"]) > 0.5 / cycle:
        errors.append(f"syscall phases at {ipns['syscall_phase']} user instructions per ns, want < {0.5 / cycle}")
    return lines, errors


def overhead(a):
    bare = read_truth(a.bare)["cpu_ns"]
    cost = {}
    for path, truth in ((a.hardware, a.hardware_truth), (a.software, a.software_truth)):
        samples = int(re.search(r"^samples\s+(\d+)", sprof(a.sprof, "--info", path), re.M).group(1))
        cost[path] = (read_truth(truth)["cpu_ns"] - bare) / samples
    hw, sw = cost[a.hardware], cost[a.software]
    lines = [f"per sample: hardware path {hw / 1000:.1f} us, software path {sw / 1000:.1f} us of emulated CPU time; "
             f"ratio hardware/software {hw / sw:.2f}"]
    errors = [] if hw > 0 and sw > 0 else ["a profiled run took no more CPU time than the bare one"]
    return lines, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sprof", required=True)
    sub = ap.add_subparsers(dest="check", required=True)
    c = sub.add_parser("counts")
    c.add_argument("profile")
    c.add_argument("truth")
    c.add_argument("--expect", action="append", default=[], help="EVENT=FACTOR: the event is FACTOR x instructions")
    c.add_argument("--pct", type=float, default=2.0, help="tolerance of each event, percent of the truth")
    c.add_argument("--cover", action="store_true", help="the event's 95%% interval must hold the truth")
    c.add_argument("--cpi", type=float, help="expected cycles per instruction")
    c.add_argument("--self-sampled", action="append", default=[], help="EVENT attributed by its own samples")
    p = sub.add_parser("phases")
    p.add_argument("profile")
    p.add_argument("truth")
    p.add_argument("--shift", type=int, required=True)
    o = sub.add_parser("overhead")
    for name in ("hardware", "hardware_truth", "software", "software_truth", "bare"):
        o.add_argument(name)
    a = ap.parse_args()
    lines, errors = {"counts": counts, "phases": phases, "overhead": overhead}[a.check](a)
    print("; ".join(lines))
    if errors:
        sys.exit("; ".join(errors))


if __name__ == "__main__":
    main()

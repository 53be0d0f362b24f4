"""The event corpus: programs from generate.py run under the collectors and
judged against the truth they measured themselves (issue 26's targets).

One *case* is (program, variant, estimator, function, event): the
function's estimate, its 95 % interval and its truth. A variant is a
collector (sprof_lib, sprof_pt), a user (root, or nobody through setpriv:
user-space-only counting) and a load (quiet, or beside two busy loops).

Targets (issue 26), per event pattern:
* a function's events within 5 % of its truth, or within 1 % of the run's
  total for a function holding under 5 % of it, in >= 90 % of cases (the
  run's total: what the program's functions made, by their truth; see score);
  no pattern with a median bias beyond 3 %;
* time shares within 1 pp;
* the 95 % intervals cover the truth in 90–98 % of cases;
* (conservation) each run's sum over the program's functions within 2 % of
  their truth, and the profile's total within 2 % of `perf stat`'s (a run of
  its own, once per program).
A run whose total of an event is under MIN_TOTAL makes no cases of that event:
too few events to judge (a program with no major faults, say).

Shared by tests/corpus/check.py (make check) and bench/event_corpus.py (make bench).
"""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
import measure  # noqa: E402  (bench/: running commands)
import truth_runs as tr  # noqa: E402  (bench/: reading sprof --ci)
import generate  # noqa: E402

EVENTS_ROOT = ("task-clock", "page-faults", "minor-faults", "major-faults", "context-switches")
EVENTS_USER = ("task-clock", "page-faults", "minor-faults", "major-faults")  # a user counts no kernel-only event
# Each event as the truth measures it (corpus_runtime.h's readings): perf's
# context-switches counts every switch, voluntary or not.
TRUTH_OF = {"task-clock": ("cpu_ns",), "page-faults": ("minor", "major"), "minor-faults": ("minor",),
            "major-faults": ("major",), "context-switches": ("vcsw", "ivcsw")}
# The event a pattern is about, by the function's kind; its other events follow "never".
EVENTS_OF_KIND = {"minor": ("page-faults", "minor-faults"), "major": ("page-faults", "major-faults"),
                  "switch": ("context-switches",)}
MIN_TOTAL = tr.MIN_TRUTH  # and relative errors only for a truth of at least this many (truth_runs)
REL_TARGET, SMALL_SHARE, SMALL_TARGET = 0.05, 0.05, 0.01
SHARE_TARGET_PP, BIAS_TARGET_PCT, WITHIN_TARGET = 1.0, 3.0, 0.90
COVERAGE_RANGE, CONSERVATION_PCT = (0.90, 0.98), 2.0
NOBODY = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


class Skip(Exception):
    """A precondition of the corpus is missing here."""


def truth_value(reading, event):
    return sum(reading[k] for k in TRUTH_OF[event])


class Workspace:
    """Where programs are built and run: a directory every user may enter,
    with a copy of the collectors and the runtime for the user nobody (the
    build tree may be out of its reach)."""

    def __init__(self, build, keep=False):
        self.build = build
        self.root = tempfile.mkdtemp(prefix="sprof-corpus.", dir="/tmp")
        self.keep = keep
        for sub in ("bin", "lib"):
            shutil.copytree(os.path.join(build, sub), os.path.join(self.root, sub), symlinks=True,
                            ignore=shutil.ignore_patterns("*.a"))
        os.chmod(self.root, 0o755)

    def tool(self, name):
        return os.path.join(self.root, "bin", name)

    def close(self):
        if self.keep:
            print(f"kept: {self.root}", file=sys.stderr)
        else:
            shutil.rmtree(self.root, ignore_errors=True)


def build_program(ws, seed, tick_ms, budget_s):
    """Generates and compiles program `seed`; returns (binary, plan)."""
    plan = generate.draw(seed, tick_ms, budget_s)
    d = os.path.join(ws.root, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "prog.c")
    with open(src, "w") as f:
        f.write(generate.source(plan))
    binary = os.path.join(d, "prog")
    workloads = os.path.join(os.path.dirname(HERE), "workloads")
    out = subprocess.run(["gcc", "-O1", "-g", "-fno-inline", "-I", HERE, "-I", workloads, src, "-o", binary,
                          "-lpthread"], capture_output=True, text=True)
    if out.returncode != 0:
        raise measure.Failed(f"gcc of seed {seed}: {out.stderr.strip()}")
    os.chmod(d, 0o755)
    return binary, plan


def read_truth(run_dir):
    """Every image's truth of a run: ({function: self reading}, the run's total reading)."""
    functions, total = {}, {}
    for path in glob.glob(os.path.join(run_dir, "truth.*.json")):
        t = json.load(open(path))
        for name, f in t["functions"].items():
            acc = functions.setdefault(name, {})
            for k, v in f["self"].items():
                acc[k] = acc.get(k, 0) + v
        if t["final"]:
            for k, v in t["threads_total"].items():
                total[k] = total.get(k, 0) + v
    if not total:
        raise measure.Failed(f"no truth written in {run_dir}")
    return functions, total


def busy_loops(n=2):
    """Starts n busy loops; returns their processes (end them with stop_busy)."""
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def stop_busy(procs):
    for p in procs:
        p.kill()
        p.wait()


def users():
    """Who runs the programs: this user ('root' or 'user'), and nobody when root can become it."""
    me = "root" if os.geteuid() == 0 else "user"
    return (me, "nobody") if me == "root" and shutil.which("setpriv") else (me,)


def events_of(user):
    """The events `user` may count: a user who counts user space only has no kernel-only event."""
    return EVENTS_ROOT if user != "nobody" and tr.kernel_counting_allowed() else EVENTS_USER


def profile_run(ws, binary, plan, collector, user, load, run_dir):
    """One run of `binary` under `collector`; returns the events and the profiles written."""
    os.makedirs(run_dir)
    events = events_of(user)
    cmd = [ws.tool(collector), "-e", ",".join(events), "-s", f"{plan['tick_ms']:g}ms",
           "-o", os.path.join(run_dir, "run.%p.sprof"), "--", binary]
    if user == "nobody":
        os.chown(run_dir, 65534, 65534)
        cmd = list(NOBODY) + cmd
    env = {"CORPUS_TRUTH_DIR": run_dir, "HOME": run_dir}
    busy = busy_loops() if load == "busy" else []
    try:
        measure.run(cmd, cwd=run_dir, env=env, timeout_s=300)
    finally:
        stop_busy(busy)
    profiles = sorted(glob.glob(os.path.join(run_dir, "run.*.sprof")))
    if not profiles:
        raise measure.Failed(f"{collector} wrote no profile in {run_dir}")
    return events, profiles


def perf_stat(binary, events, run_dir):
    """The run's total of each event by `perf stat` of the program (children
    included), or None where there is no perf."""
    if not shutil.which("perf"):
        return None
    os.makedirs(run_dir)
    out = os.path.join(run_dir, "perf.csv")
    measure.run(["perf", "stat", "-x", ",", "-o", out, "-e", ",".join(events), "--", binary], cwd=run_dir,
                env={"CORPUS_TRUTH_DIR": run_dir})
    totals = {}
    for line in open(out):
        cells = line.strip().split(",")
        if len(cells) > 2 and cells[2] in events and cells[0] not in ("<not counted>", "<not supported>"):
            # perf prints task-clock in ms
            totals[cells[2]] = float(cells[0]) * (1e6 if cells[2] == "task-clock" else 1)
    return totals


def pattern_of(f, event):
    if event == "task-clock":
        return "time"
    return f["pattern"] if event in EVENTS_OF_KIND[f["kind"]] else "never"


def score(plan, events, profiles, run_dir, tags, sprof):
    """(cases, sums) of one profiled run, both estimators. The run's total of
    an event is what the program's own functions made (the truth's sum over
    them): the process's totals hold, besides, what the collector's runtime
    does in the program's threads, which no profile claims to show. A sum
    row sets the profile's sum over those functions, and over all it shows,
    beside that total. A function the profile does not list (no tick and no
    record found it) is what the profile tells a reader: none of any event,
    exactly."""
    truth, _ = read_truth(run_dir)
    by_name = {f["name"]: f for f in plan["functions"]}
    cases, sums = [], []
    for estimator in tr.ESTIMATORS:
        rep = tr.report(sprof, profiles, estimator)
        absent = {event: "0" for event in events}
        absent.update({f"{event}_{bound}": "0" for event in events for bound in ("low", "high")})
        rep.update({name: absent for name in truth if name not in rep})

        def estimate(name, event):
            return tr.number(rep.get(name, {}).get(event))
        time_sum = sum(estimate(name, "task-clock") or 0 for name in truth)
        for event in events:
            run_total = sum(truth_value(reading, event) for reading in truth.values())
            sums.append(dict(tags, estimator=estimator, event=event, truth_total=run_total,
                             functions_sum=sum(estimate(name, event) or 0 for name in truth),
                             profile_sum=sum(tr.number(r.get(event)) or 0 for r in rep.values())))
            if run_total < MIN_TOTAL:
                continue
            for name, reading in truth.items():
                t, r, est = truth_value(reading, event), rep.get(name, {}), estimate(name, event)
                case = dict(tags, estimator=estimator, function=name, event=event,
                            pattern=pattern_of(by_name[name], event), truth=t, estimate=est,
                            low=tr.number(r.get(event + "_low")), high=tr.number(r.get(event + "_high")),
                            run_total=run_total)
                if event == "task-clock":
                    case["share_error_pp"] = None if est is None or not time_sum else \
                        100 * (est / time_sum - t / run_total)
                cases.append(case)
    return cases, sums


def in_target(c):
    if c["estimate"] is None:
        return False
    err = abs(c["estimate"] - c["truth"])
    if err <= REL_TARGET * c["truth"]:
        return True
    return c["truth"] < SMALL_SHARE * c["run_total"] and err <= SMALL_TARGET * c["run_total"]


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else None


def pattern_summary(cases):
    """Per pattern: cases, |error| median, p90, worst (%), median bias (%),
    share within target, interval coverage, and for time the share errors."""
    out = {}
    for pattern in ("time",) + generate.PATTERNS:
        sel = [c for c in cases if c["pattern"] == pattern]
        if not sel:
            continue
        rel = [abs(e) for e in map(tr.signed_error, sel) if e is not None]
        signed = [e for e in map(tr.signed_error, sel) if e is not None]
        row = dict(cases=len(sel), median=statistics.median(rel) if rel else None, p90=percentile(rel, 0.9),
                   worst=max(rel) if rel else None, bias=statistics.median(signed) if signed else None,
                   within=sum(map(in_target, sel)) / len(sel),
                   coverage=sum(map(tr.covered, sel)) / len(sel))
        if pattern == "time":
            pp = [abs(c["share_error_pp"]) for c in sel if c.get("share_error_pp") is not None]
            row["share_within"] = sum(e <= SHARE_TARGET_PP for e in pp) / len(sel)
            row["share_worst_pp"] = max(pp) if pp else None
        out[pattern] = row
    return out


def failures(summary, sums, perf_rows):
    """The targets each pattern (and the conservation) misses, as sentences."""
    bad = []
    for pattern, r in summary.items():
        if pattern == "time":
            if r["share_within"] < WITHIN_TARGET:
                bad.append(f"time: shares within {SHARE_TARGET_PP:g} pp in {r['share_within']:.0%} of cases")
        elif r["within"] < WITHIN_TARGET:
            bad.append(f"{pattern}: within target in {r['within']:.0%} of cases (< {WITHIN_TARGET:.0%})")
        if pattern != "time" and r["bias"] is not None and abs(r["bias"]) > BIAS_TARGET_PCT:
            bad.append(f"{pattern}: median bias {r['bias']:+.1f} %")
        lo, hi = COVERAGE_RANGE
        if not lo <= r["coverage"] <= hi:
            bad.append(f"{pattern}: 95 % intervals cover {r['coverage']:.0%} of cases (not {lo:.0%}–{hi:.0%})")
    judged = [s for s in sums if s["truth_total"] >= MIN_TOTAL]
    off = [s for s in judged if abs(s["functions_sum"] - s["truth_total"]) > CONSERVATION_PCT / 100 * s["truth_total"]]
    if off:
        worst = max(off, key=lambda s: abs(s["functions_sum"] / s["truth_total"] - 1))
        bad.append(f"conservation: {len(off)} of {len(judged)} (run, estimator, event) sums over the functions off "
                   f"their truth by more than {CONSERVATION_PCT:g} %; worst {worst['event']} {worst['estimator']} "
                   f"{100 * (worst['functions_sum'] / worst['truth_total'] - 1):+.1f} % (seed {worst['seed']}, "
                   f"{worst['collector']} {worst['user']} {worst['load']})")
    for event, (med, worst, n, _, _) in perf_conservation(sums, perf_rows).items():
        if worst > CONSERVATION_PCT:
            bad.append(f"conservation: {event}'s sum over functions off perf stat's total by up to {worst:.1f} % "
                       f"(median {med:.1f} % over {n})")
    return bad


def fmt(x, unit=" %"):
    return "–" if x is None else f"{x:.1f}{unit}"


def table(summary):
    """The per-pattern table in Markdown."""
    lines = ["| pattern | cases | median \\|error\\| | 90th pct | worst | median bias | within target | "
             "95 % interval covers |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for pattern, r in summary.items():
        within = f"{r['within']:.0%}"
        if pattern == "time":
            within += f" (shares within 1 pp: {r['share_within']:.0%}, worst {fmt(r['share_worst_pp'], ' pp')})"
        lines.append(f"| {pattern} | {r['cases']} | {fmt(r['median'])} | {fmt(r['p90'])} | {fmt(r['worst'])} | "
                     f"{fmt(r['bias'])} | {within} | {r['coverage']:.0%} |")
    return "\n".join(lines)


def conservation_summary(sums):
    """Per event: the median and worst |sum − truth| / truth in % over runs, the
    sums over the program's functions."""
    out = {}
    for event in EVENTS_ROOT:
        d = [100 * abs(s["functions_sum"] / s["truth_total"] - 1) for s in sums
             if s["event"] == event and s["truth_total"] >= MIN_TOTAL]
        if d:
            out[event] = (statistics.median(d), max(d), len(d))
    return out


def preconditions(build):
    """Raises Skip when the corpus cannot run here; the collectors missing is an error."""
    if not shutil.which("gcc"):
        raise Skip("no gcc to build the corpus's programs")
    for tool in ("sprof", "sprof_lib", "sprof_pt"):
        if not os.access(os.path.join(build, "bin", tool), os.X_OK):
            raise measure.Failed(f"{build}/bin/{tool} is not built")


def run_program(ws, seed, variants, tick_ms, budget_s, data_rows, with_perf=True):
    """Builds program `seed`, runs it in every variant (collector, user, load)
    and, once, under perf stat; appends its cases and sums to data_rows
    ({'cases': [...], 'sums': [...], 'perf': [...]})."""
    binary, plan = build_program(ws, seed, tick_ms, budget_s)
    seed_dir = os.path.dirname(binary)
    for collector, user, load in variants:
        run_dir = os.path.join(seed_dir, f"{collector}-{user}-{load}")
        tags = dict(seed=seed, collector=collector, user=user, load=load)
        events, profiles = profile_run(ws, binary, plan, collector, user, load, run_dir)
        cases, sums = score(plan, events, profiles, run_dir, tags, ws.tool("sprof"))
        data_rows["cases"] += cases
        data_rows["sums"] += sums
    if with_perf:
        events = events_of("root" if os.geteuid() == 0 else "user")
        perf_dir = os.path.join(seed_dir, "perf")
        totals = perf_stat(binary, events, perf_dir)
        if totals is not None:
            _, truth_total = read_truth(perf_dir)
            for event, v in totals.items():
                data_rows["perf"].append(dict(seed=seed, event=event, perf=v,
                                              truth_total=truth_value(truth_total, event)))


def perf_conservation(sums, perf_rows):
    """Per event: (median, worst, runs) of |profile sum − perf stat's total| / perf's total in %,
    perf stat run once per program, and (median, worst) of perf's total against the truth's of that run.
    perf stat's run is another run, by this user, on a quiet machine: it is compared with the profiled
    runs of that user, quiet only. Beside two busy loops a program is switched out many times more
    (context-switches), and nobody counts user space only: those runs measure something else."""
    perf = {(p["seed"], p["event"]): p for p in perf_rows}
    me = users()[0]
    out = {}
    for event in EVENTS_ROOT:
        d = [100 * abs(s["profile_sum"] / perf[s["seed"], event]["perf"] - 1) for s in sums
             if s["event"] == event and s["user"] == me and s["load"] == "quiet" and (s["seed"], event) in perf
             and perf[s["seed"], event]["perf"] >= MIN_TOTAL]
        t = [100 * abs(p["perf"] / p["truth_total"] - 1) for p in perf_rows
             if p["event"] == event and p["truth_total"] >= MIN_TOTAL]
        if d:
            out[event] = (statistics.median(d), max(d), len(d), statistics.median(t) if t else None,
                          max(t) if t else None)
    return out

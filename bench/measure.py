"""Running commands and summarising repeated measurements.

Every timing comes from os.wait4 on the command we start: `cpu_s` is user+sys
of that process and every descendant it waited for (a profiler's own process
included), `wall_s` the elapsed time around it.
"""
import os
import random
import statistics
import subprocess
import time


class Failed(RuntimeError):
    """A command exited non-zero; the message names it and quotes its stderr."""


def run(cmd, cwd=None, env=None, timeout_s=600):
    """Runs cmd (a list) with stdout discarded; returns {'wall_s', 'cpu_s'}."""
    full_env = dict(os.environ, **env) if env else None
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = start + timeout_s
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise Failed(f"{' '.join(cmd)}: no exit after {timeout_s} s")
        time.sleep(0.002)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace").strip()
    proc.stderr.close()
    if proc.returncode != 0:
        raise Failed(f"{' '.join(cmd)} exited {proc.returncode}: {err.splitlines()[-1] if err else 'no message'}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime}


def interleaved(configs, rounds, run_one, seed=1):
    """Runs every config once per round, in a fresh random order each round
    (A B C, C A B, …), so slow drifts of the machine hit all configs alike.
    run_one(config) returns a dict of measurements; the result maps each config
    to the list of its per-round dicts."""
    rng = random.Random(seed)
    results = {c: [] for c in configs}
    for _ in range(rounds):
        order = list(configs)
        rng.shuffle(order)
        for c in order:
            results[c].append(run_one(c))
    return results


def summary(values):
    """(median, min, max) of a non-empty list."""
    return statistics.median(values), min(values), max(values)


def fmt_pct(values, digits=1):
    """'median (min … max)' of values given as fractions, printed in percent."""
    med, lo, hi = summary(values)
    return f"{100 * med:+.{digits}f} % ({100 * lo:+.{digits}f} … {100 * hi:+.{digits}f})"


def machine_line():
    """One line naming the machine: CPU model, CPU count, kernel."""
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, Linux {os.uname().release}"

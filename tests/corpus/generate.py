#!/usr/bin/env python3
"""The event corpus's generator: from a seed, a C program whose functions
make events in a known pattern and measure their own truth.

Every choice comes from random.Random(seed), so a seed names one program:
2–12 functions, each a real symbol (noinline, built -O1 -fno-inline) with a
call length of 0.2–20 ticks (the profiler's sample interval), whole ticks
when the program is paced on the tick; each makes one kind of event
(fresh pages: minor faults; pages of a dropped file: major faults; 50 µs
sleeps: context switches) in one pattern (PATTERNS); some call another
function or themselves part way through; 1–4 threads; sometimes a forked
child that runs functions of its own, and sometimes execs the same program to
run them. The functions measure their own truth (tests/corpus/corpus_runtime.h)
and each image writes it to $CORPUS_TRUTH_DIR/truth.PID.ROLE.json.

usage: generate.py SEED OUT.c [--tick-ms MS] [--budget-s SECONDS]
       (writes OUT.c and OUT.plan.json: what was drawn, for the checker)
Build: gcc -O1 -g -fno-inline -I tests/corpus -I tests/workloads OUT.c -lpthread
"""
import argparse
import json
import math
import random
import sys

PATTERNS = ("entry", "exit", "middle", "even", "never", "burst")
KINDS = ("minor", "major", "switch")
# CPU a single event costs here, to keep a program's CPU time near its
# budget (only a guide: the truth is measured, never assumed).
EVENT_CPU_NS = {"minor": 1500, "major": 40000, "switch": 10000}
# Events a call makes per ms of its length, drawn log-uniformly: dense
# enough that a function's count is far above a stray fault's.
RATE_PER_MS = {"minor": (2.0, 80.0), "major": (0.1, 2.0), "switch": (0.2, 4.0)}
EVEN_SLICES = 64  # "evenly": the call in at most this many slices, events at each
MAX_FUNCTIONS = 32  # corpus_runtime.h's bound


def log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def draw(seed, tick_ms=1.0, budget_s=0.5):
    """The plan of program `seed`: everything the C source is written from."""
    rng = random.Random(seed)
    paced = rng.random() < 0.3
    n = rng.randint(2, 12)
    forks = n >= 3 and rng.random() < 0.3
    execs = forks and rng.random() < 0.5
    # The child runs a function or more of its own (the last ones).
    child_n = rng.randint(1, max(1, n // 3)) if forks else 0
    functions = []
    for i in range(n):
        role = "child" if i >= n - child_n else "parent"
        length = log_uniform(rng, 0.2, 20.0)
        if paced:
            length = max(1, round(length))
        pattern = rng.choice(PATTERNS)
        kind = rng.choices(KINDS, weights=(6, 1, 3))[0]
        length_ms = length * tick_ms
        per_call = 0 if pattern == "never" else max(1, round(log_uniform(rng, *RATE_PER_MS[kind]) * length_ms))
        burst_every = rng.randint(3, 10) if pattern == "burst" else 0
        if burst_every:  # rare and large: the events of burst_every calls at once
            per_call *= burst_every
        functions.append(dict(
            name=f"{'c' if role == 'child' else 'f'}{i}_{pattern}" + ("" if pattern == "never" else f"_{kind}"), role=role, length_ticks=length,
            pattern=pattern, kind=kind, events_per_call=per_call, burst_every=burst_every,
            burst_at=rng.random(), callee=None, callee_at=rng.random(), recursion=0))
    for i, f in enumerate(functions):
        later = [j for j in range(i + 1, n) if functions[j]["role"] == f["role"]]
        if later and rng.random() < 0.3:
            f["callee"] = rng.choice(later)  # only later functions: no cycles but recursion
        elif rng.random() < 0.15:
            f["recursion"] = rng.randint(1, 3)
    threads = rng.randint(1, 4)
    plan = dict(seed=seed, tick_ms=tick_ms, budget_s=budget_s, paced=paced, threads=threads, forks=forks,
                execs=execs, functions=functions)
    plan["schedules"] = schedules(rng, plan)
    return plan


def call_cpu_ns(plan, i):
    """One top-level call of function i, callees and recursion included, in CPU ns (a guide)."""
    f = plan["functions"][i]
    own = f["length_ticks"] * plan["tick_ms"] * 1e6
    per_call = f["events_per_call"] / (f["burst_every"] or 1)
    own += per_call * EVENT_CPU_NS[f["kind"]]
    inner = call_cpu_ns(plan, f["callee"]) if f["callee"] is not None else 0
    return (own + inner) * (f["recursion"] + 1)


def schedules(rng, plan):
    """Top-level calls: one list per parent thread and, when the program
    forks, one for the child; about the budget of CPU time in all."""
    fs = plan["functions"]
    roles = {"parent": [i for i, f in enumerate(fs) if f["role"] == "parent"],
             "child": [i for i, f in enumerate(fs) if f["role"] == "child"]}
    lists = [("parent", t) for t in range(plan["threads"])] + ([("child", 0)] if plan["forks"] else [])
    share = plan["budget_s"] * 1e9 / len(lists)
    out = []
    for role, _ in lists:
        mine = roles[role]
        weights = [rng.uniform(0.2, 1.0) for _ in mine]
        calls, spent = [], 0.0
        while spent < share or not set(mine) <= set(calls):
            i = rng.choices(mine, weights)[0]
            calls.append(i)
            spent += call_cpu_ns(plan, i)
        out.append(dict(role=role, calls=calls))
    return out


def body(plan, i):
    """The C statements of function i between its events_open and events_close."""
    f, tick_ns = plan["functions"][i], plan["tick_ms"] * 1e6
    own_ns = int(f["length_ticks"] * tick_ns)
    callee = ""
    if f["callee"] is not None:
        callee = f"{plan['functions'][f['callee']]['name']}({plan['functions'][f['callee']]['recursion']});"
    elif f["recursion"]:
        callee = f"if (depth > 0) {f['name']}(depth - 1);"
    # Points in the call's own CPU time (0..1) where something happens.
    points = []
    if callee:
        points.append((f["callee_at"], callee))
    pattern = f["pattern"]
    if pattern == "even":
        slices = max(1, min(EVEN_SLICES, f["events_per_call"]))
        at = min(slices - 1, int(f["callee_at"] * slices))
        call_line = f"        if (s == {at}) {callee}\n" if callee else ""
        return (f"    for (long s = 0; s < {slices}; ++s) {{\n"
                f"        events_make(&e, (n * (s + 1)) / {slices} - (n * s) / {slices});\n"
                f"        spin_ns({own_ns // slices}L);\n{call_line}    }}\n")
    where = {"entry": 0.0, "exit": 1.0, "middle": 0.5, "burst": f["burst_at"]}.get(pattern)
    if where is not None:
        points.append((where, "events_make(&e, n);"))
    points.sort(key=lambda p: p[0])
    lines, done = [], 0.0
    for at, stmt in points:
        if at > done:
            lines.append(f"    spin_ns({int((at - done) * own_ns)}L);")
            done = at
        lines.append(f"    {stmt}")
    if done < 1.0:
        lines.append(f"    spin_ns({int((1.0 - done) * own_ns)}L);")
    return "\n".join(lines) + "\n"


def source(plan):
    fs = plan["functions"]
    if len(fs) > MAX_FUNCTIONS:
        raise ValueError(f"{len(fs)} functions: at most {MAX_FUNCTIONS}")
    out = [f"/* Event corpus program, seed {plan['seed']} (tests/corpus/generate.py): generated, not edited. */",
           f"#define N_FUNCTIONS {len(fs)}",
           "static const char *const function_names[N_FUNCTIONS] = {"
           + ", ".join(f'"{f["name"]}"' for f in fs) + "};",
           '#include "corpus_runtime.h"', ""]
    out += [f"__attribute__((noinline)) void {f['name']}(int depth);" for f in fs] + [""]
    for i, f in enumerate(fs):
        kind = {"minor": "MINOR", "major": "MAJOR", "switch": "SWITCH"}[f["kind"]]
        if f["burst_every"]:
            count = (f"    static __thread long calls;\n"
                     f"    const long n = ++calls % {f['burst_every']} == 0 ? {f['events_per_call']}L : 0;\n")
        else:
            count = f"    const long n = {f['events_per_call']}L;\n"
        out.append(f"__attribute__((noinline)) void {f['name']}(int depth) {{\n"
                   f"    (void)depth;\n    enter();\n{count}    struct events e;\n"
                   f"    events_open(&e, {kind}, n);\n{body(plan, i)}"
                   f"    events_close(&e);\n    leave({i});\n}}\n")
    out.append("#define CORPUS_MAIN\n#include \"corpus_runtime.h\"\n")
    for k, s in enumerate(plan["schedules"]):
        calls = s["calls"]
        out.append(f"static const unsigned char schedule_{k}_calls[] = {{{', '.join(map(str, calls))}}};\n"
                   f"static void schedule_{k}(void) {{\n"
                   f"    for (unsigned long c = 0; c < sizeof schedule_{k}_calls; ++c) {{\n"
                   f"        switch (schedule_{k}_calls[c]) {{\n"
                   + "".join(f"        case {i}: {fs[i]['name']}({fs[i]['recursion']}); break;\n"
                             for i in sorted(set(calls)))
                   + "        }\n    }\n}\n")
    parents = [f"schedule_{k}" for k, s in enumerate(plan["schedules"]) if s["role"] == "parent"]
    child = len(plan["schedules"]) - 1
    dropped = max([f["events_per_call"] for f in fs if f["kind"] == "major"] + [0])
    out.append(f"static void (*const parent_schedules[])(void) = {{{', '.join(parents)}}};\n")
    lines = ["int main(int argc, char **argv) {",
             f"    corpus_setup({dropped});"]
    if plan["forks"]:
        lines += [f"    if (argc > 1 && strcmp(argv[1], \"--child\") == 0) {{  /* the exec'd child */",
                  "        thread_start();",
                  f"        schedule_{child}();",
                  "        thread_done();",
                  "        write_truth(\"child\", 1);",
                  "        return 0;",
                  "    }",
                  "    fflush(NULL);",
                  "    const pid_t pid = fork();",
                  "    if (pid < 0) return perror(\"corpus: fork\"), 3;",
                  "    if (pid == 0) {"]
        if plan["execs"]:
            # Before the exec the forked child runs nothing of its own: its
            # functions are the exec'd image's.
            lines += ["        execl(\"/proc/self/exe\", argv[0], \"--child\", (char *)NULL);",
                      "        perror(\"corpus: exec\");",
                      "        _exit(127);"]
        else:
            lines += ["        thread_start();",
                      f"        schedule_{child}();",
                      "        thread_done();",
                      "        write_truth(\"forked\", 1);",
                      "        _exit(0);"]
        lines += ["    }"]
    else:
        lines += ["    (void)argc, (void)argv;"]
    lines += [f"    run_threads(parent_schedules, {len(parents)});",
              "    write_truth(\"parent\", 1);"]
    if plan["forks"]:
        lines += ["    int status;",
                  "    if (waitpid(pid, &status, 0) != pid) return perror(\"corpus: waitpid\"), 3;",
                  "    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {",
                  "        fprintf(stderr, \"corpus: the child failed (status %d)\\n\", status);",
                  "        return 3;",
                  "    }"]
    lines += ["    return 0;", "}", ""]
    out.append("\n".join(lines))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("out")
    ap.add_argument("--tick-ms", type=float, default=1.0)
    ap.add_argument("--budget-s", type=float, default=0.5)
    a = ap.parse_args()
    if a.tick_ms <= 0 or a.budget_s <= 0:
        sys.exit("generate.py: --tick-ms and --budget-s must be positive")
    plan = draw(a.seed, a.tick_ms, a.budget_s)
    with open(a.out, "w") as f:
        f.write(source(plan))
    with open(a.out.rsplit(".", 1)[0] + ".plan.json", "w") as f:
        json.dump(plan, f, indent=1)


if __name__ == "__main__":
    main()

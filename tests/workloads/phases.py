"""Three kinds of interpreted work, each for a fixed CPU time, repeated: a
real interpreter's phases, known to the program. Recursive calls (fib),
string building (text) and sorting and hashing (sort) keep different parts of
python3 busy: its eval loop and frames, its unicode and join code, its list
sort and dict code.

Writes the true boundaries to TRUTH: lines `PART START END`, in seconds of
the main thread's CPU time (time.thread_time: the profile's task-clock axis,
which starts where the interpreter does, before the script).

usage: python3 phases.py [-r ROUNDS] [-l PART_SECONDS] [-o TRUTH]"""
import argparse
import random
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def text(n):
    return len("-".join(str(i) * 3 for i in range(n)).upper().split("-"))


def sort(n, rng):
    values = [rng.random() for _ in range(n)]
    values.sort()
    return len({round(v, 3): v for v in values})


KINDS = {"fib": lambda rng: fib(16), "text": lambda rng: text(4000), "sort": lambda rng: sort(4000, rng)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-r", type=int, default=2, help="rounds of the three kinds")
    ap.add_argument("-l", type=float, default=0.6, help="CPU seconds per part")
    ap.add_argument("-o", default=None, help="truth file")
    a = ap.parse_args()
    rng = random.Random(1)
    truth = []
    for _ in range(a.r):
        for name, work in KINDS.items():
            begin = time.thread_time()
            end = begin + a.l
            while time.thread_time() < end:
                work(rng)
            truth.append((name, begin, time.thread_time()))
    if a.o:
        with open(a.o, "w") as f:
            f.write("# part start end (main thread CPU seconds)\n")
            for name, b, e in truth:
                f.write(f"{name} {b:.6f} {e:.6f}\n")


main()

"""A CPU-bound Python program for the peer-agreement benchmark: a fixed mix of
interpreter work (calls, integer and float arithmetic, dictionaries, strings,
sorting), so the interpreter's own C functions share the time in a stable way.

usage: python3 python_cpu.py [ROUNDS]
"""
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def floats(n):
    x = 0.0
    for i in range(n):
        x = x * 0.999 + i / (i + 1.0)
    return x


def words(n):
    counts = {}
    for i in range(n):
        w = "w" + str(i % 977)
        counts[w] = counts.get(w, 0) + 1
    return len(counts)


def sorting(n):
    data = [(i * 7919) % 10007 for i in range(n)]
    return sorted(data)[n // 2]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    total = 0
    for _ in range(rounds):
        total += fib(22) + int(floats(200_000)) + words(150_000) + sorting(200_000)
    print(total)


if __name__ == "__main__":
    main()

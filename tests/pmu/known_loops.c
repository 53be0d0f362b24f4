// The guest's workload of known instruction counts (scripts/pmu-test): two
// functions, each one assembly loop of a fixed length, so the number of
// instructions each retires is known before it runs. Under QEMU's
// -icount shift=N every instruction takes 2^N cycles, so the cycles are known
// too.
//
// usage: known_loops loops N4 N8 [ROUNDS]  four() runs N4 iterations of 4
//            instructions, eight() N8 of 8, alternately, ROUNDS times (default 1);
//            prints "four_instructions X", "eight_instructions Y" and the CPU
//            time they took, "cpu_ns T" (the profiler's cost included)
//        known_loops mix N ROUNDS  alternates four(N) (all in user space) and
//            syscall_phase() (N/256 getppid calls, mostly kernel instructions)
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// subs + b.ne close each loop; the rest are adds on scratch registers.
__attribute__((noinline)) void four(uint64_t n) {
    __asm__ volatile("1: add x9, x9, #1\n\t"
                     "add x10, x10, #1\n\t"
                     "subs %0, %0, #1\n\t"
                     "b.ne 1b"
                     : "+r"(n)
                     :
                     : "x9", "x10", "cc");
}

__attribute__((noinline)) void eight(uint64_t n) {
    __asm__ volatile("1: add x9, x9, #1\n\t"
                     "add x10, x10, #1\n\t"
                     "add x11, x11, #1\n\t"
                     "add x12, x12, #1\n\t"
                     "add x13, x13, #1\n\t"
                     "add x14, x14, #1\n\t"
                     "subs %0, %0, #1\n\t"
                     "b.ne 1b"
                     : "+r"(n)
                     :
                     : "x9", "x10", "x11", "x12", "x13", "x14", "cc");
}

// Mostly kernel instructions: the user-space instructions per CPU second
// drop far below four()'s. The call is inline, so the samples taken in the
// kernel land here, not in libc's syscall().
__attribute__((noinline)) void syscall_phase(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
        register long nr __asm__("x8") = SYS_getppid;
        register long ret __asm__("x0");
        __asm__ volatile("svc #0" : "=r"(ret) : "r"(nr) : "memory");
    }
}

static uint64_t cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t count(const char* text) {
    char* end;
    uint64_t n = strtoull(text, &end, 10);
    if (*text == '\0' || *end != '\0' || n == 0) {
        fprintf(stderr, "known_loops: '%s' is not a positive count\n", text);
        exit(2);
    }
    return n;
}

int main(int argc, char** argv) {
    if (argc >= 4 && strcmp(argv[1], "loops") == 0) {
        uint64_t n4 = count(argv[2]), n8 = count(argv[3]), rounds = argc > 4 ? count(argv[4]) : 1;
        uint64_t start = cpu_ns();
        for (uint64_t r = 0; r < rounds; ++r) {
            four(n4);
            eight(n8);
        }
        uint64_t spent = cpu_ns() - start;
        printf("four_instructions %llu\neight_instructions %llu\ncpu_ns %llu\n", (unsigned long long)(4 * n4 * rounds),
               (unsigned long long)(8 * n8 * rounds), (unsigned long long)spent);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "mix") == 0) {
        uint64_t n = count(argv[2]), rounds = count(argv[3]);
        for (uint64_t r = 0; r < rounds; ++r) {
            four(n);
            syscall_phase(n / 256);
        }
        printf("phases %llu four syscall_phase\n", (unsigned long long)(2 * rounds));
        return 0;
    }
    fprintf(stderr, "usage: known_loops loops N4 N8 [ROUNDS] | known_loops mix N ROUNDS\n");
    return 2;
}

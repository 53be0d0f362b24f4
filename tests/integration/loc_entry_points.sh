#!/usr/bin/env bash
# sprof-cc / sprof-c++ and the access hooks: every function the compiler may
# call from instrumented code (the names gcc's own cc1 and cc1plus carry)
# and every --wrap of the specs file is defined by both libsprof_access.so
# and the runtime; programs built with the wrappers (or with the flags they
# print) link our hooks, never libtsan, and run normally.
source "$(dirname "$0")/common.sh" "$1"
command -v gcc > /dev/null || { echo "skipped: no gcc"; exit 77; }
CC1=$(gcc -print-prog-name=cc1)
CC1PLUS=$(g++ -print-prog-name=cc1plus 2>/dev/null || true)
[ -x "$CC1" ] || { echo "skipped: gcc's cc1 not found"; exit 77; }

grep -aohE '__tsan_[a-z0-9_]+' "$CC1" ${CC1PLUS:+"$CC1PLUS"} | sort -u > wanted.txt
# gcc 12: the 5 sizes of plain and volatile reads and writes, ranges, vptr,
# init, function entry/exit, 11 atomic operations of 5 sizes, 2 fences.
n=$(wc -l < wanted.txt)
[ "$n" -ge 83 ] || fail "only $n __tsan_ names in $CC1: not gcc's ThreadSanitizer instrumentation?"
grep -o -- '--wrap=[A-Za-z_0-9]*' "$BUILD/share/sprof/sprof.specs" | sed 's/--wrap=/__wrap_/' >> wanted.txt
[ "$(grep -c __wrap_ wanted.txt)" -ge 4 ] || fail "the specs file wraps no memory functions"
sort -u -o wanted.txt wanted.txt
for lib in "$BUILD/lib/libsprof_access.so" "$BUILD/lib/libsprof_rt.so"; do
    nm -D --defined-only "$lib" | awk '{print $3}' | sort -u > defined.txt
    missing=$(comm -23 wanted.txt defined.txt | tr '\n' ' ')
    [ -z "$missing" ] || fail "$(basename "$lib") lacks $missing"
done
pass "$n compiler entry points and $(grep -c __wrap_ wanted.txt) memory functions in both libraries"

# A C++ program with threads, atomics of every size, memcpy, strings.
cat > prog.cpp <<'EOF'
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
std::atomic<long> counter{0};
std::atomic<unsigned char> small{0};
int main(int argc, char**) {
    char from[4096], to[4096];
    std::memset(from, 'x', sizeof from - argc);
    std::memcpy(to, from, sizeof to - argc);
    std::thread t([] { for (int i = 0; i < 100000; ++i) { counter.fetch_add(1); small.fetch_add(1); } });
    for (int i = 0; i < 100000; ++i) counter.fetch_add(1);
    t.join();
    static unsigned __int128 wide = 0;
    __atomic_fetch_add(&wide, 7, __ATOMIC_SEQ_CST);
    std::string s = std::string("sum ") + std::to_string(counter.load() + int(small.load()) + int(wide));
    std::printf("%s %c\n", s.c_str(), to[100]);
}
EOF
"$BIN/sprof-c++" -O2 prog.cpp -o prog -latomic
[ "$(./prog)" = "sum 200167 x" ] || fail "instrumented program printed '$(./prog)', not 'sum 200167 x'"
ldd prog > libs.txt
grep -q libsprof_access.so libs.txt || fail "prog does not load libsprof_access.so: $(cat libs.txt)"
if grep -q libtsan libs.txt; then fail "prog loads libtsan: $(cat libs.txt)"; fi
# (grep on files: with pipefail, grep -q ending a pipe early fails its writer)
nm -D prog > symbols.txt
grep -q ' U __tsan_atomic64_fetch_add' symbols.txt || fail "prog calls no atomic hook"
grep -q ' U __wrap_memcpy' symbols.txt || fail "prog's memcpy is not wrapped"
pass "sprof-c++: threads, atomics of 1 to 16 bytes, memcpy; linked with our hooks, no libtsan"

# Compile and link as separate steps with the plain compiler and the printed flags (CMake, Make).
printf 'int a[64];\nint main(void) { for (int i = 0; i < 64; ++i) a[i] = i; return a[63] - 63; }\n' > c.c
gcc -O2 $("$BIN/sprof-cc" --print-cflags) -c c.c -o c.o
nm c.o > symbols.txt
grep -q ' U __tsan_write4' symbols.txt || fail "--print-cflags: c.o calls no write hook"
gcc $("$BIN/sprof-cc" --print-ldflags) c.o -o c
./c || fail "the program linked with --print-ldflags failed"
ldd c > libs.txt
grep -q libsprof_access.so libs.txt || fail "--print-ldflags: c does not load libsprof_access.so"
"$BIN/sprof-cc" -O2 c.c -o c2 && ./c2 || fail "sprof-cc: compile and link in one step failed"
pass "--print-cflags / --print-ldflags with the plain compiler, and sprof-cc in one step"

// libhook_logger.so: a stand-in for the runtime, preloaded over
// libsprof_access.so by tests/integration/loc_inline.sh. Like the runtime
// it defines the thread-local HotPath and the plain access hooks; it arms
// the main thread's HotPath as HOOK_MODE says and writes a line per hook
// call to HOOK_LOG, so the test can hold the fast path that the plugin
// inlined into a program against what the hooks saw:
//
//   HOOK_MODE=disarmed   no sample point, nothing watched: no call at all
//   HOOK_MODE=every      every access is an event (exact mode's setting)
//   HOOK_MODE=at:K       the K-th access is the first event, then disarmed
//   HOOK_MODE=scattered  the filter marks one granule in 8, scattered:
//                        granule b when the top 3 bits of the 32-bit product
//                        b · 2654435761 are 0
//
// Range and 16-byte hooks log a line per cache line their bytes touch.
// Each call: "N ADDRESS SIZE WRITE PC SLOW" (N: the access's number, counted
// as the runtime's hooks count it; PC: the return address − 1; SLOW: 1 when
// the hooks' own test, count_access, sends the access to the slow path, as
// the runtime's would: the inline code may call a hook for an access of a
// group that holds the event, and leaves the choice to it); at exit:
// "end COUNT", the thread's count of accesses.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sprof/hot_path.hpp"

SPROF_DEFINE_HOT_PATH;

namespace {

FILE* g_log = nullptr;
bool g_disarm_after_first = false;
alignas(64) uint8_t g_filter[sprof::kNothingWatchedSize + sprof::kFilterPad];

void note(const volatile void* p, unsigned size, bool write, void* return_address) {
    sprof::HotPath& h = SPROF_HOT_PATH_VARIABLE;
    const auto address = reinterpret_cast<uint64_t>(p);
    uint64_t n;
    const bool slow = sprof::count_access(h, address, n);
    std::fprintf(g_log, "%" PRIu64 " %p %u %d %p %d\n", n, const_cast<const void*>(p), size, write,
                 static_cast<char*>(return_address) - 1, slow);
    if (slow && g_disarm_after_first) sprof::disarm(h);
}

__attribute__((constructor)) void start() {
    const char* mode = std::getenv("HOOK_MODE");
    const char* log = std::getenv("HOOK_LOG");
    if (!mode || !log || !(g_log = std::fopen(log, "w"))) {
        std::fprintf(stderr, "hook_logger: set HOOK_MODE and HOOK_LOG (a writable file)\n");
        std::exit(2);
    }
    sprof::HotPath& h = SPROF_HOT_PATH_VARIABLE;
    if (std::strcmp(mode, "every") == 0) {
        sprof::set_next_event(h, 0);
    } else if (std::strncmp(mode, "at:", 3) == 0) {
        sprof::set_next_event(h, std::strtoull(mode + 3, nullptr, 10));
        g_disarm_after_first = true;
    } else if (std::strcmp(mode, "scattered") == 0) {
        for (uint32_t b = 0; b < sprof::kNothingWatchedSize; ++b) g_filter[b] = (b * 2654435761u) >> 29 == 0;
        for (uint32_t b = 0; b < sprof::kFilterPad; ++b) g_filter[sprof::kNothingWatchedSize + b] = g_filter[b];
        h.filter = g_filter;
        h.filter_mask = sprof::kNothingWatchedSize - 1;
        h.line_mask = ~uint64_t{63};
    } else if (std::strcmp(mode, "disarmed") != 0) {
        std::fprintf(stderr, "hook_logger: unknown HOOK_MODE '%s'\n", mode);
        std::exit(2);
    }
}

__attribute__((destructor)) void end() {
    std::fprintf(g_log, "end %" PRIu64 "\n", sprof::counted(SPROF_HOT_PATH_VARIABLE));
    std::fclose(g_log);
}

// A range or 16-byte access: one access per line its bytes touch, as the runtime counts them.
void note_lines(const volatile void* p, size_t size, bool write, void* return_address) {
    const auto start = reinterpret_cast<uint64_t>(p);
    const unsigned shift = sprof::line_shift(SPROF_HOT_PATH_VARIABLE);
    for (uint64_t line = start >> shift; line <= (start + size - 1) >> shift; ++line) {
        const uint64_t from = std::max(start, line << shift), to = std::min(start + size, (line + 1) << shift);
        note(reinterpret_cast<const volatile void*>(from), static_cast<unsigned>(to - from), write, return_address);
    }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void __tsan_read_range(void* p, size_t n) {
    note_lines(p, n, false, __builtin_return_address(0));
}
extern "C" __attribute__((visibility("default"))) void __tsan_write_range(void* p, size_t n) {
    note_lines(p, n, true, __builtin_return_address(0));
}
extern "C" __attribute__((visibility("default"))) void __tsan_read16(void* p) {
    note_lines(p, 16, false, __builtin_return_address(0));
}
extern "C" __attribute__((visibility("default"))) void __tsan_write16(void* p) {
    note_lines(p, 16, true, __builtin_return_address(0));
}

#define HOOKS(n)                                                                                                 \
    extern "C" __attribute__((visibility("default"))) void __tsan_read##n(void* p) {                          \
        note(p, n, false, __builtin_return_address(0));                                                        \
    }                                                                                                          \
    extern "C" __attribute__((visibility("default"))) void __tsan_write##n(void* p) {                         \
        note(p, n, true, __builtin_return_address(0));                                                         \
    }                                                                                                          \
    extern "C" __attribute__((visibility("default"))) void __tsan_volatile_read##n(void* p) {                 \
        note(p, n, false, __builtin_return_address(0));                                                        \
    }                                                                                                          \
    extern "C" __attribute__((visibility("default"))) void __tsan_volatile_write##n(void* p) {                \
        note(p, n, true, __builtin_return_address(0));                                                         \
    }
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)

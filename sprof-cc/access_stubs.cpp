// libsprof_access.so: what a program built with sprof-cc / sprof-c++ links
// in place of gcc's ThreadSanitizer runtime. Every hook is a no-op (atomics
// still do their operation, the memory functions their work), and the
// thread-local HotPath that the plugin's inline fast path reads stays
// disarmed: the program runs as it would, at the cost of that fast path per
// load and store (or of a call, where code was compiled without the
// plugin). sprof_lib --locality preloads the runtime, whose hooks and
// HotPath of the same names take precedence and feed the accesses to the
// locality collector.
#include <cstddef>
#include <cstdint>

#include "sprof/hot_path.hpp"

SPROF_DEFINE_HOT_PATH;

namespace {
template <unsigned Size>
inline void note_access(const volatile void*, bool, void*) {}
inline void note_range(const volatile void*, size_t, bool, void*) {}
inline void note_unseen(size_t) {}
inline void note_alloc(void*, size_t, void*) {}
inline void note_free(uintptr_t) {}
}  // namespace

#include "sprof/tsan_entry_points.inc"

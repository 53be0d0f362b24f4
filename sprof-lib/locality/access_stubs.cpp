// libsprof_access.so: what a program built with sprof-cc / sprof-c++ links
// in place of gcc's ThreadSanitizer runtime. Every hook is a no-op (atomics
// still do their operation, the memory functions their work): the program
// runs as it would, at the cost of a call per load and store. sprof_lib
// --locality preloads the runtime, whose hooks of the same names take
// precedence and feed the accesses to the locality collector.
#include <cstddef>
#include <cstdint>

namespace {
template <unsigned Size>
inline void note_access(const volatile void*, bool, void*) {}
inline void note_range(const volatile void*, size_t, bool, void*) {}
inline void note_unseen(size_t) {}
inline void note_alloc(void*, size_t, void*) {}
inline void note_free(uintptr_t) {}
}  // namespace

#include "tsan_entry_points.inc"

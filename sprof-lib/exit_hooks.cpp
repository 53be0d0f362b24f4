// _exit and _Exit end the process without atexit handlers: the profile's
// last period and its END are written here, before the real call. (exit()
// ends it from an on_exit handler; the C library's own calls of _exit are
// internal and do not come here.)
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "runtime.hpp"

namespace {

using exit_fn = void (*)(int);
exit_fn real_exit_now = nullptr;
exit_fn real_Exit = nullptr;

// Looked up at load: dlsym may allocate, and _exit is called from signal
// handlers and vfork children.
__attribute__((constructor(101))) void find_real_exits() {
    real_exit_now = reinterpret_cast<exit_fn>(dlsym(RTLD_NEXT, "_exit"));
    real_Exit = reinterpret_cast<exit_fn>(dlsym(RTLD_NEXT, "_Exit"));
}

[[noreturn]] void leave(exit_fn real, int status) {
    // A vfork child shares the parent's memory: end_profile leaves any
    // process but the owner alone.
    sprof::rt::end_profile(sprof::EndHow::exit_now, status);
    if (real) real(status);
    for (;;) syscall(SYS_exit_group, status);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void _exit(int status) { leave(real_exit_now, status); }
extern "C" __attribute__((visibility("default"))) void _Exit(int status) noexcept { leave(real_Exit, status); }

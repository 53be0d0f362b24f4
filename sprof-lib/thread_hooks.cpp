// Hooks into the program's threads: every thread created with pthread_create
// is sampled from its first instruction to its exit.
#include <dlfcn.h>
#include <pthread.h>

#include <new>

#include "runtime.hpp"

namespace sprof::rt {
namespace {

using create_fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

create_fn real_create() {
    static create_fn fn = reinterpret_cast<create_fn>(dlsym(RTLD_NEXT, "pthread_create"));
    return fn;
}

struct StartArgs {
    void* (*routine)(void*);
    void* arg;
};

pthread_key_t exit_key;

// Runs at the thread's exit, whether it returned or called pthread_exit.
void thread_exiting(void*) { on_thread_exit(); }

void* trampoline(void* p) {
    StartArgs start = *static_cast<StartArgs*>(p);
    delete static_cast<StartArgs*>(p);
    pthread_setspecific(exit_key, &exit_key);  // any non-null value arms the destructor
    on_thread_start();
    return start.routine(start.arg);
}

__attribute__((constructor(101))) void install_hooks() {
    pthread_key_create(&exit_key, thread_exiting);
    pthread_atfork(nullptr, nullptr, on_fork_child);
}

}  // namespace

int real_pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*fn)(void*), void* arg) {
    return real_create()(t, a, fn, arg);
}

}  // namespace sprof::rt

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* t, const pthread_attr_t* a,
                                                                    void* (*fn)(void*), void* arg) {
    using namespace sprof::rt;
    if (!active()) return real_pthread_create(t, a, fn, arg);
    auto* start = new (std::nothrow) StartArgs{fn, arg};
    if (!start) return real_pthread_create(t, a, fn, arg);
    int rc = real_pthread_create(t, a, trampoline, start);
    if (rc != 0) delete start;
    return rc;
}

// The in-process runtime's life cycle: set up at load, drained by a writer
// thread, finished at exit.
#pragma once
#include <pthread.h>

namespace sprof::rt {

// Whether new threads are to be sampled (false before set-up, after a failure,
// during exit and in a forked child).
bool active();
// Starts sampling the calling (new) thread; reports failures once on stderr.
void on_thread_start();
// The calling thread ends: its partial interval is flushed by the writer.
void on_thread_exit();
// In the child after fork(): stop sampling (a child that execs is profiled
// again by its new image's runtime).
void on_fork_child();
// The C library's pthread_create, bypassing the hook (for the runtime's own threads).
int real_pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*fn)(void*), void* arg);

}  // namespace sprof::rt

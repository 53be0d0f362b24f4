// The in-process runtime's life cycle: set up at load, drained by a writer
// thread, ended however the program ends (exit, _exit, exec, a fatal signal).
#pragma once
#include <pthread.h>

#include "sprof/profile.hpp"

namespace sprof::rt {

// Whether new threads are to be sampled (false before set-up, after a failure,
// during exit and in a forked child).
bool active();
// Starts sampling the calling (new) thread; reports failures once on stderr.
void on_thread_start();
// The calling thread ends: its partial interval is flushed by the writer.
void on_thread_exit();
// In the child after fork(): the child is profiled on its own (its own
// writer thread and profile, opened at its first sample); the parent's copy
// of the runtime is left alone.
void on_fork_child();
// The C library's pthread_create, bypassing the hook (for the runtime's own threads).
int real_pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*fn)(void*), void* arg);

// Wakes the writer thread for a drain before its period is up (buffers
// filling fast). Async-signal-safe: one write to an eventfd.
void wake_writer();

// Whether the caller is the process this runtime profiles: false in a fork
// or vfork child, which shares (a copy of) the runtime but not its profile.
// Async-signal-safe.
bool is_owner();

// The program ends: the writer thread drains every thread, writes the END
// record (how, value: exit code or signal number) and closes the profile,
// while the caller waits at most a bounded time. Only the first ending does
// anything; a second one (another thread, a crash during the first) returns
// at once, as does a caller that is not the owner. Async-signal-safe: it only
// posts to the writer and polls.
void end_profile(EndHow how, int value);

// Before an exec of the owner: stops sampling the calling thread (no sampling
// signal may be pending across the exec: the new image would die of it),
// flushes everything and writes an END that says "exec". Returns whether it
// did; then exec_failed() must follow if the exec returns.
bool suspend_for_exec();
// The exec failed: the END is taken back, recording goes on in the same file.
void exec_failed();

// "SPROF_IMAGE=<pid>:<N>" for the image this process execs into next
// (static storage, set at load).
const char* next_image_entry();

}  // namespace sprof::rt

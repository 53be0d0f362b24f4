// The runtime's locality collector (sprof_lib --locality): the hooks of an
// instrumented program feed each thread's accesses to its own sampler (or,
// in exact mode, its own exact simulator); the writer thread turns what they
// found into locality records of the profile.
//
// Life cycle, as the event sampler's: start() once at set-up, then
// thread_start() in every thread the runtime samples, thread_exit() as it
// ends; drain() from the writer thread every period and, with `final`, when
// the image ends (exit, _exit, exec, a fatal signal), which closes every
// thread still running.
#pragma once
#include <cstdint>

#include "sprof/profile.hpp"
#include "sprof/session.hpp"

namespace sprof::rt::locality {

// Starts collection as `run` says (mode, line size, period, window, seed).
void start(const LocalityRun& run);
bool active();

void thread_start();
void thread_exit();
// In a forked child: it collects nothing (its image is the parent's).
void fork_child();

// The writer thread: the records of what the threads found since the last
// call; `final` ends every thread's collection.
void drain(ProfileSession& session, bool final);

}  // namespace sprof::rt::locality

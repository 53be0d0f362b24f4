// Where sampling ticks come from: the traced thread's own CPU time (a perf
// task-clock event whose overflow signals the monitor), or the wall clock
// (one monitor timer for all threads).
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "sprof/perf_ring.hpp"
#include "sprof/tick_dither.hpp"

namespace sprof::pt {

// For counters that take no ticks of their own (the cmdev backend):
// a task-clock event on one thread that sends a signal to this (monitor)
// process every period of the thread's CPU time, with the fd in siginfo.
// Each overflow also records the thread's user-space PC at that instant: a
// ptrace stop comes later and lands preferentially on system-call exits
// (IPIs are slow in a VM), so the PC is taken from the record instead.
class CpuTicker {
public:
    // With enable_on_exec the ticks start at the thread's next exec. Throws std::runtime_error.
    CpuTicker(pid_t tid, const TickPlan& ticks, int signo, bool enable_on_exec);
    ~CpuTicker();
    CpuTicker(const CpuTicker&) = delete;
    CpuTicker& operator=(const CpuTicker&) = delete;

    int fd() const { return fd_; }
    // The user PC of the newest tick not yet taken; false when there is none.
    // Starts the next period.
    bool take_pc(uint64_t& pc);

private:
    int fd_ = -1;
    PerfRing ring_;
    TickDither dither_;
};

// The wall clock's ticks: a CLOCK_MONOTONIC timerfd (non-blocking), armed
// for one tick at a time at absolute deadlines, each a dithered period
// after the one before, so a late monitor does not move the ticks after.
class WallTicker {
public:
    explicit WallTicker(const TickPlan& ticks);  // throws std::runtime_error
    ~WallTicker();
    WallTicker(const WallTicker&) = delete;
    WallTicker& operator=(const WallTicker&) = delete;

    int fd() const { return fd_; }
    // True when a tick came; arms the next.
    bool take();

private:
    void arm();
    int fd_ = -1;
    TickDither dither_;
    uint64_t deadline_ns_ = 0;
};

}  // namespace sprof::pt

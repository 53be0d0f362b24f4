// Counter backends: where the virtual counters of one thread come from.
// Kept narrow on purpose: a backend attaches to a task and, on each sampling
// tick, returns the deltas of the live events and rotates the live set.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sprof/events.hpp"
#include "sprof/sample.hpp"
#include "sprof/scheduler.hpp"
#include "sprof/tick_dither.hpp"

namespace sprof {

// Where a counter set that records its own ticks delivers them. Called from
// a signal handler in sprof_lib: implementations must be async-signal-safe.
class SampleSink {
public:
    virtual void put(const RawSample& s) noexcept = 0;
    // Ticks the kernel could not record (the buffer was full): their time and
    // events are in the next sample, their PCs are unknown.
    virtual void lost(uint64_t ticks) noexcept = 0;
    // How many more samples put() takes now without losing one. An event's
    // own records are left out when it is short (their events go with the
    // next record put), so that they never crowd out a tick.
    virtual size_t room() const noexcept { return SIZE_MAX; }

protected:
    ~SampleSink() = default;
};

// Counters of one task (thread). Created outside the signal handler;
// sample() and drain() are async-signal-safe.
class TaskCounters {
public:
    virtual ~TaskCounters() = default;
    // Fills ref_ns, live_mask and delta[] for the sampling interval that ends
    // now, then makes the next live set live. Returns false when the task's
    // counters are gone (the task exited). s.pc is the caller's business.
    virtual bool sample(RawSample& s) noexcept = 0;
    // Counters attached with a sample period take their own ticks: the
    // kernel records, at each tick, the task's user PC and every counter
    // value of that same instant. tick_fd() is the event whose overflow
    // signals a tick (route it with F_SETSIG/F_SETOWN_EX); -1 when the caller
    // must tick and call sample() itself. The ticks start when the caller
    // enables tick_fd (PERF_EVENT_IOC_ENABLE) once it routed them, or at the
    // exec for counters attached with enable_on_exec.
    virtual int tick_fd() const { return -1; }
    // Turns the ticks recorded since the last call into samples (the last one
    // closes now), then rotates the live set. Returns false when the task's
    // counters are gone.
    virtual bool drain(SampleSink&) noexcept { return false; }
    // At the task's end, after its last tick was taken: fills ref_ns,
    // live_mask and delta[] for what was counted since (s.pc and s.wall_ns
    // are the caller's). False when there is nothing to read or nothing was
    // counted.
    virtual bool tail(RawSample&) noexcept { return false; }
};

struct BackendError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // Starts counting for task `tid` (0 = calling thread). With enable_on_exec
    // the counters start at the task's next exec (sprof_pt). A backend that
    // can take its own ticks does so on the task's CPU time, at the periods
    // of `ticks` (period 0: never; see TaskCounters::tick_fd). Throws
    // BackendError.
    virtual std::unique_ptr<TaskCounters> attach(pid_t tid, bool enable_on_exec, const TickPlan& ticks) = 0;
};

// Every thread's live sets follow `rotation`, from its own stream of the
// seed (rotation_stream of its tid). With call_depth > 0 every tick and
// every event's own record carries the user call chain (RawSample::chain,
// frame pointers), at most call_depth frames.
std::unique_ptr<Backend> make_perf_backend(const std::vector<EventSpec>& events, unsigned slots, Rotation rotation,
                                           unsigned call_depth);
// /dev/cmdev from kmod/cmdev.ko; the module rotates the live set. Throws
// BackendError when the device is missing or speaks another ABI.
std::unique_ptr<Backend> make_cmdev_backend(const std::vector<EventSpec>& events, unsigned slots,
                                            Rotation rotation);

// "perf" (perf_event_open) or "cmdev" (/dev/cmdev; no call chains: its
// ticks are not the kernel's records). Throws BackendError.
std::unique_ptr<Backend> make_backend(const std::string& name, const std::vector<EventSpec>& events, unsigned slots,
                                      Rotation rotation, unsigned call_depth);

}  // namespace sprof

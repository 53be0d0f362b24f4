// Counter backends: where the virtual counters of one thread come from.
// Kept narrow on purpose: a backend attaches to a task and, on each sampling
// tick, returns the deltas of the live events and rotates the live set.
#pragma once
#include <sys/types.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sprof/events.hpp"
#include "sprof/sample.hpp"

namespace sprof {

// Counters of one task (thread). Created outside the signal handler;
// sample() is async-signal-safe.
class TaskCounters {
public:
    virtual ~TaskCounters() = default;
    // Fills ref_ns, live_mask and delta[] for the sampling interval that ends
    // now, then makes the next live set live. Returns false when the task's
    // counters are gone (the task exited).
    virtual bool sample(RawSample& s) noexcept = 0;
};

struct BackendError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // Starts counting for task `tid` (0 = calling thread). With enable_on_exec
    // the counters start at the task's next exec (sprof_pt). Throws BackendError.
    virtual std::unique_ptr<TaskCounters> attach(pid_t tid, bool enable_on_exec) = 0;
};

std::unique_ptr<Backend> make_perf_backend(const std::vector<EventSpec>& events, unsigned slots);
// /dev/cmdev from kmod/cmdev.ko; the module rotates the live set. Throws
// BackendError when the device is missing or speaks another ABI.
std::unique_ptr<Backend> make_cmdev_backend(const std::vector<EventSpec>& events, unsigned slots);

// "perf" (perf_event_open) or "cmdev" (/dev/cmdev). Throws BackendError.
std::unique_ptr<Backend> make_backend(const std::string& name,
                                      const std::vector<EventSpec>& events, unsigned slots);

}  // namespace sprof

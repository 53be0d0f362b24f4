#include "sprof/backend.hpp"

namespace sprof {

std::unique_ptr<Backend> make_backend(const std::string& name, const std::vector<EventSpec>& events,
                                      unsigned slots, Rotation rotation, unsigned call_depth) {
    if (events.empty()) throw BackendError("no events to count");
    if (events.size() > kMaxEvents)
        throw BackendError("too many events: at most " + std::to_string(kMaxEvents));
    if (name == "perf") return make_perf_backend(events, slots, rotation, call_depth);
    if (name == "cmdev" && call_depth)
        throw BackendError("call chains (--call-graph) need the perf backend: cmdev's ticks carry none");
    if (name == "cmdev") return make_cmdev_backend(events, slots, rotation);
    throw BackendError("unknown backend '" + name + "' (use perf or cmdev)");
}

}  // namespace sprof

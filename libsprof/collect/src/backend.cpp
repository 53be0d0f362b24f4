#include "sprof/backend.hpp"

namespace sprof {

std::unique_ptr<Backend> make_backend(const std::string& name, const std::vector<EventSpec>& events,
                                      unsigned slots, Rotation rotation) {
    if (events.empty()) throw BackendError("no events to count");
    if (events.size() > kMaxEvents)
        throw BackendError("too many events: at most " + std::to_string(kMaxEvents));
    if (name == "perf") return make_perf_backend(events, slots, rotation);
    if (name == "cmdev") return make_cmdev_backend(events, slots, rotation);
    throw BackendError("unknown backend '" + name + "' (use perf or cmdev)");
}

}  // namespace sprof

// Event names → perf_event_attr, and the check that this machine can count them.
#pragma once
#include <linux/perf_event.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace sprof {

// One event the user asked for, resolved to the attr the kernel takes.
struct EventSpec {
    std::string name;        // as the user wrote it; also the column name in reports
    perf_event_attr attr{};  // disabled=1; exclude_kernel where this process may not count the kernel
    bool time_like = false;  // measures time (task-clock, cpu-clock, msr/tsc/): never a regressor
    // Attributed by its own overflow samples, each with the PC where the
    // event happened (as perf record -e EVENT does), rather than charged to
    // the function of the next tick: set by resolve_run where the backend
    // takes its own ticks (perf, CPU clock) and the event can sample.
    bool self_sampled = false;
    bool user_only() const { return attr.exclude_kernel; }
};

// Whether the kernel can raise a sample on the event's own overflow: the
// software events that are not time (page faults, context switches, …) and
// the core PMU's events (a PMU of its own type is asked by opening the event
// with a sample period). Time (task-clock, cpu-clock, msr/tsc/) is what the
// ticks attribute.
bool can_sample_itself(const EventSpec& ev);

// The most events of this kind a CPU second can hold: what an event that
// samples itself takes its first period from, before its own rate is known
// (backend_perf.cpp).
double fastest_rate(const EventSpec& ev);

struct EventError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Resolves one name: perf's generic names (cycles, page-faults, L1-dcache-load-misses…)
// and every libpfm4 name (pmu::EVENT:umask), plus sysfs PMU syntax (msr/tsc/).
// Throws EventError naming the event and the reason.
EventSpec resolve_event(const std::string& name);

// Resolves a comma-separated list; with `probe`, opens each event once on the
// calling thread (probe_event), so no event it cannot count goes unnoticed.
std::vector<EventSpec> resolve_events(const std::string& comma_list, bool probe = true);

// Opens the event for the calling thread and closes it again. Throws EventError
// with a message that says why (no PMU, not supported, permission, …).
void probe_event(const EventSpec& ev);

// The default set: a useful hardware set where a PMU exists, else software
// events. `why` is set to a one-line explanation when the fallback was taken.
std::string default_events(std::string& why);

// Every event this machine can really count (each one probed), one name per entry.
std::vector<std::string> countable_events();

// Splits "a,b,c" (no empty items allowed).
std::vector<std::string> split_list(const std::string& s);
// The events' names, comma separated: what resolve_events reads back.
std::string event_list(const std::vector<EventSpec>& events);

}  // namespace sprof

// Event names → perf_event_attr. Three sources, tried in this order:
//  1. sysfs PMU syntax "pmu/event/" or "pmu/term=value,…/" (e.g. msr/tsc/),
//  2. the few perf names libpfm4 does not know (alignment-faults, emulation-faults),
//  3. libpfm4: perf's generic names (cycles, page-faults, L1-dcache-load-misses…)
//     and every PMU-specific name (pmu::EVENT:umask).
#include "sprof/events.hpp"

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "sprof/perf_event.hpp"
#include "sprof/sample.hpp"

namespace sprof {
namespace {

namespace fs = std::filesystem;
// A plain string, not a path object: the runtime resolves its events in a
// constructor of the preloaded library, before this file's dynamic
// initialisers may have run.
constexpr const char* kSysfsPmus = "/sys/bus/event_source/devices";

void init_pfm() {
    static std::once_flag once;
    static int status = PFM_SUCCESS;
    std::call_once(once, [] { status = pfm_initialize(); });
    if (status != PFM_SUCCESS)
        throw EventError(std::string("libpfm4 failed to initialise: ") + pfm_strerror(status));
}

perf_event_attr base_attr() {
    perf_event_attr a{};
    a.size = sizeof a;
    a.disabled = 1;
    a.exclude_hv = 1;
    apply_counting_scope(a);  // user and kernel space where allowed, else user space only (perf's :u)
    return a;
}

std::string read_line(const fs::path& p) {
    std::ifstream in(p);
    std::string s;
    std::getline(in, s);
    return s;
}

// Sets the bits of `value` into the attr field named by a sysfs format spec
// such as "config:0-7,21" (ranges are filled from the value's low bits up).
void apply_format(perf_event_attr& a, const std::string& format, uint64_t value, const std::string& event) {
    auto colon = format.find(':');
    if (colon == std::string::npos) throw EventError("'" + event + "': malformed sysfs format '" + format + "'");
    std::string field = format.substr(0, colon);
    __u64* target = field == "config" ? &a.config : field == "config1" ? &a.config1
                     : field == "config2" ? &a.config2 : nullptr;
    if (!target) throw EventError("'" + event + "': unsupported sysfs format field '" + field + "'");
    std::string ranges = format.substr(colon + 1);
    unsigned used = 0;
    size_t pos = 0;
    while (pos < ranges.size()) {
        size_t comma = ranges.find(',', pos);
        std::string r = ranges.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? ranges.size() : comma + 1;
        unsigned lo = std::stoul(r), hi = lo;
        if (auto dash = r.find('-'); dash != std::string::npos) hi = std::stoul(r.substr(dash + 1));
        for (unsigned bit = lo; bit <= hi && bit < 64; ++bit, ++used)
            if (used < 64 && ((value >> used) & 1u)) *target |= uint64_t{1} << bit;
    }
}

// "msr/tsc/" or "cpu/event=0x3c,umask=0/": terms are either an alias from
// pmu/events/ or key=value pairs whose keys are described in pmu/format/.
bool resolve_sysfs(const std::string& name, EventSpec& ev) {
    auto slash = name.find('/');
    if (slash == std::string::npos || slash == 0 || name.back() != '/') return false;
    std::string pmu = name.substr(0, slash);
    std::string terms = name.substr(slash + 1, name.size() - slash - 2);
    fs::path dir = fs::path(kSysfsPmus) / pmu;
    if (!fs::exists(dir / "type"))
        throw EventError("cannot count '" + name + "': no PMU named '" + pmu + "' on this machine (see " +
                         kSysfsPmus + ")");
    ev.attr.type = std::stoul(read_line(dir / "type"));
    if (fs::exists(dir / "events" / terms)) {
        ev.time_like = terms == "tsc";  // TSC ticks while on CPU: a clock, not work done
        terms = read_line(dir / "events" / terms);
    }
    size_t pos = 0;
    while (pos < terms.size()) {
        size_t comma = terms.find(',', pos);
        std::string term = terms.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? terms.size() : comma + 1;
        auto eq = term.find('=');
        std::string key = term.substr(0, eq);
        uint64_t value = eq == std::string::npos ? 1 : std::stoull(term.substr(eq + 1), nullptr, 0);
        if (!fs::exists(dir / "format" / key))
            throw EventError("cannot count '" + name + "': PMU '" + pmu + "' has no event or term '" + key + "'");
        apply_format(ev.attr, read_line(dir / "format" / key), value, name);
    }
    // A PMU that cannot tell privilege levels apart (msr: the kernel's
    // PERF_PMU_CAP_NO_EXCLUDE) refuses every exclude bit with EINVAL. Like
    // perf, leave out exclude_hv for it: it means nothing outside a
    // hypervisor. A user who may count user space only still cannot count
    // such an event (perf_open_error says why).
    if (int fd = perf_event_open_task(ev.attr, 0); fd >= 0) {
        close(fd);
    } else if (fd == -EINVAL && ev.attr.exclude_hv) {
        perf_event_attr plain = ev.attr;
        plain.exclude_hv = 0;
        if (int again = perf_event_open_task(plain, 0); again >= 0 || again != -EINVAL) {
            if (again >= 0) close(again);
            ev.attr.exclude_hv = 0;
        }
    }
    return true;
}

bool resolve_alias(const std::string& name, EventSpec& ev) {
    static const std::map<std::string, uint64_t> software = {
        {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
        {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
    };
    auto it = software.find(name);
    if (it == software.end()) return false;
    ev.attr.type = PERF_TYPE_SOFTWARE;
    ev.attr.config = it->second;
    return true;
}

void resolve_pfm(const std::string& name, EventSpec& ev) {
    init_pfm();
    perf_event_attr attr{};
    attr.size = sizeof attr;
    pfm_perf_encode_arg_t arg{};
    arg.attr = &attr;
    arg.size = sizeof arg;
    // Privilege levels unless the name says (":u", ":k"): user and kernel
    // where this process may count the kernel, else user only.
    const int plm = kernel_counting_allowed() ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3;
    int rc = pfm_get_os_event_encoding(name.c_str(), plm, PFM_OS_PERF_EVENT_EXT, &arg);
    if (rc != PFM_SUCCESS)
        throw EventError("unknown event '" + name + "' (libpfm4: " + pfm_strerror(rc) +
                         "); list what this machine counts with --list-events");
    ev.attr.type = attr.type;
    ev.attr.config = attr.config;
    ev.attr.config1 = attr.config1;
    ev.attr.config2 = attr.config2;
    ev.attr.exclude_kernel = attr.exclude_kernel;
    ev.attr.exclude_hv = attr.exclude_hv;
    ev.attr.exclude_user = attr.exclude_user;
    ev.attr.precise_ip = attr.precise_ip;
}

// Software events that only ever happen in kernel context: with kernel space
// excluded they count zero, so a user-space-only run must refuse them.
bool kernel_only(const perf_event_attr& a) {
    return a.type == PERF_TYPE_SOFTWARE &&
           (a.config == PERF_COUNT_SW_CONTEXT_SWITCHES || a.config == PERF_COUNT_SW_CPU_MIGRATIONS ||
            a.config == PERF_COUNT_SW_CGROUP_SWITCHES);
}

bool is_time_like(const EventSpec& ev) {
    return ev.time_like || (ev.attr.type == PERF_TYPE_SOFTWARE && (ev.attr.config == PERF_COUNT_SW_TASK_CLOCK ||
                                                                   ev.attr.config == PERF_COUNT_SW_CPU_CLOCK));
}

}  // namespace

bool can_sample_itself(const EventSpec& ev) {
    if (ev.time_like) return false;
    switch (ev.attr.type) {
    case PERF_TYPE_SOFTWARE:
        // Placeholders that never count (dummy, bpf-output) have nothing to attribute.
        return ev.attr.config != PERF_COUNT_SW_DUMMY && ev.attr.config != PERF_COUNT_SW_BPF_OUTPUT;
    case PERF_TYPE_HARDWARE:
    case PERF_TYPE_HW_CACHE:
    case PERF_TYPE_RAW: return true;
    case PERF_TYPE_TRACEPOINT:
    case PERF_TYPE_BREAKPOINT: return false;
    default: {
        // A PMU of its own type (sysfs names: armv8_pmuv3/inst_retired/,
        // msr/aperf/, uncore): the kernel says whether it can sample. A
        // core's PMU can; msr and uncore PMUs refuse a sample period, and
        // are counted at the ticks.
        perf_event_attr a = ev.attr;
        a.sample_period = 1'000'000'000;
        const int fd = perf_event_open_task(a, 0);
        if (fd < 0) return false;
        close(fd);
        return true;
    }
    }
}

double fastest_rate(const EventSpec& ev) {
    // A fault or a context switch takes a microsecond at the least. A PMU
    // event counts at most what a fast core's cycles or retired
    // instructions do: 4 GHz, 2.5 instructions a cycle. Starting there, a
    // period is never so short that the kernel throttles the event before
    // its real rate is known (since Linux 6.16 a throttle stops the whole
    // group, the reference clock included: on the arm64 guest's PMU a first
    // period made for page faults lost 70 % of the instructions).
    return ev.attr.type == PERF_TYPE_SOFTWARE ? 1e6 : 1e10;
}

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        // A sysfs event "pmu/a=1,b=2/" contains commas: keep them inside the slashes.
        if (auto slash = s.find('/', pos); slash != std::string::npos && slash < comma) {
            auto closing = s.find('/', slash + 1);
            if (closing != std::string::npos) comma = s.find(',', closing);
        }
        std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (item.empty()) throw EventError("empty event name in list '" + s + "'");
        out.push_back(item);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

std::string event_list(const std::vector<EventSpec>& events) {
    std::string list;
    for (const EventSpec& e : events) list += (list.empty() ? "" : ",") + e.name;
    return list;
}

EventSpec resolve_event(const std::string& name) {
    EventSpec ev;
    ev.name = name;
    ev.attr = base_attr();
    try {
        if (!resolve_sysfs(name, ev) && !resolve_alias(name, ev)) resolve_pfm(name, ev);
    } catch (const std::invalid_argument&) {
        throw EventError("cannot parse event '" + name + "'");
    } catch (const std::out_of_range&) {
        throw EventError("cannot parse event '" + name + "': number out of range");
    }
    ev.time_like = is_time_like(ev);
    if (kernel_only(ev.attr) && ev.attr.exclude_kernel)
        throw EventError("cannot count '" + name + "': it happens only in the kernel, and " +
                         (kernel_counting_allowed()
                              ? std::string("the event was limited to user space")
                              : "this user may count user space only (kernel.perf_event_paranoid = " +
                                    std::to_string(paranoid_level()) +
                                    "; needs CAP_PERFMON or a paranoid level of 1) — leave it out"));
    return ev;
}

void probe_event(const EventSpec& ev) {
    int fd = perf_event_open_task(ev.attr, 0);
    if (fd < 0) throw EventError(perf_open_error(ev.name, ev.attr, -fd));
    close(fd);
}

std::vector<EventSpec> resolve_events(const std::string& comma_list, bool probe) {
    std::vector<EventSpec> out;
    for (const auto& name : split_list(comma_list)) {
        for (const auto& seen : out)
            if (seen.name == name) throw EventError("event '" + name + "' is listed twice");
        out.push_back(resolve_event(name));
        if (probe) probe_event(out.back());
    }
    if (out.size() > kMaxEvents)
        throw EventError("too many events (" + std::to_string(out.size()) + "); at most " +
                         std::to_string(kMaxEvents) + " at once");
    return out;
}

std::string default_events(std::string& why) {
    const std::string hardware = "cycles,instructions,cache-misses,branch-misses,page-faults";
    try {
        resolve_events(hardware);
        why.clear();
        return hardware;
    } catch (const EventError&) {
        // A user who may count user space only gets no kernel-only events.
        const std::string software = kernel_counting_allowed()
                                         ? "task-clock,page-faults,context-switches,cpu-migrations"
                                         : "task-clock,page-faults,minor-faults,major-faults";
        why = "no hardware PMU on this machine (virtualised?): counting " + software + " instead";
        return software;
    }
}

std::vector<std::string> countable_events() {
    std::vector<std::string> names;
    auto try_add = [&](const std::string& name) {
        try {
            probe_event(resolve_event(name));
            names.push_back(name);
        } catch (const EventError&) {
        }
    };
    // perf's generic names first: they are what most users type.
    for (const char* n : {"cycles", "instructions", "cache-references", "cache-misses", "branches",
                          "branch-misses", "bus-cycles", "ref-cycles", "stalled-cycles-frontend",
                          "stalled-cycles-backend", "L1-dcache-loads", "L1-dcache-load-misses",
                          "L1-icache-load-misses", "LLC-loads", "LLC-load-misses", "dTLB-load-misses",
                          "iTLB-load-misses", "branch-loads", "branch-load-misses", "cpu-clock", "task-clock",
                          "page-faults", "minor-faults", "major-faults", "context-switches", "cpu-migrations",
                          "alignment-faults", "emulation-faults"})
        try_add(n);
    // sysfs PMU events (msr/tsc/ …).
    std::error_code ec;
    for (const auto& pmu : fs::directory_iterator(kSysfsPmus, ec)) {
        for (const auto& ev : fs::directory_iterator(pmu.path() / "events", ec)) {
            std::string file = ev.path().filename();
            if (file.find('.') != std::string::npos) continue;  // .scale/.unit companions
            try_add(pmu.path().filename().string() + "/" + file + "/");
        }
    }
    // libpfm4's PMU-specific tables, for PMUs it detects (each event is still probed).
    init_pfm();
    for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
        pfm_pmu_info_t pinfo{};
        pinfo.size = sizeof pinfo;
        if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &pinfo) != PFM_SUCCESS || !pinfo.is_present) continue;
        if (p == PFM_PMU_PERF_EVENT || p == PFM_PMU_PERF_EVENT_RAW) continue;  // covered by the generic names
        for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
            pfm_event_info_t einfo{};
            einfo.size = sizeof einfo;
            if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS) continue;
            try_add(std::string(pinfo.name) + "::" + einfo.name);
        }
    }
    return names;
}

}  // namespace sprof

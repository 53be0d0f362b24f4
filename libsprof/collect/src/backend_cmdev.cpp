// The cmdev backend: counters from /dev/cmdev (kmod/cmdev.ko). The module
// keeps the live set and rotates it on every SAMPLE, so one ioctl per tick
// yields the deltas and the reference time (the task's CPU time, from a
// task-clock counter the module keeps live beside the N events).
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <uapi/cmdev.h>

#include "sprof/backend.hpp"

namespace sprof {
namespace {

static_assert(CMDEV_MAX_EVENTS >= kMaxEvents, "every run must fit in one cmdev session");

constexpr const char* kDevice = "/dev/cmdev";

std::string errno_text(int err) { return std::strerror(err); }

// kernel.perf_event_paranoid as text, for messages ("?" when unreadable).
std::string paranoid_level() {
    std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
    std::string level;
    return f >> level ? level : "?";
}

// Opens the device and checks that it speaks our ABI (and, for a shuffled
// rotation, that the module can shuffle).
int open_device(Rotation::Kind rotation) {
    int fd = ::open(kDevice, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENODEV || err == ENXIO)
            throw BackendError("cmdev: /dev/cmdev not found — load the module: insmod kmod/cmdev.ko");
        if (err == EACCES || err == EPERM)
            throw BackendError("cmdev: /dev/cmdev refused (kernel.perf_event_paranoid=" + paranoid_level() +
                               "): it is for root, CAP_PERFMON and the group of the module's gid= parameter "
                               "— ask the administrator (docs/KMOD.md) or use --backend perf");
        throw BackendError(std::string("cmdev: cannot open /dev/cmdev: ") + errno_text(err));
    }
    cmdev_version v{};
    v.size = sizeof v;
    if (ioctl(fd, CMDEV_IOC_VERSION, &v) < 0 || v.abi_version != CMDEV_ABI_VERSION) {
        ::close(fd);
        throw BackendError("cmdev: /dev/cmdev speaks ABI " + std::to_string(v.abi_version) + ", not " +
                           std::to_string(CMDEV_ABI_VERSION) + " — load the matching kmod/cmdev.ko");
    }
    if (rotation == Rotation::shuffled && !(v.config_flags & CMDEV_CONFIG_SHUFFLE)) {
        ::close(fd);
        throw BackendError("cmdev: this kmod/cmdev.ko cannot shuffle the rotation — load the module of this "
                           "sprof, or use --rotation round-robin");
    }
    return fd;
}

// The subset of perf_event_attr that cmdev carries; anything else would be
// silently dropped, so such events are refused.
cmdev_event to_cmdev_event(const EventSpec& ev) {
    const perf_event_attr& a = ev.attr;
    if (a.type == PERF_TYPE_BREAKPOINT || a.type == PERF_TYPE_TRACEPOINT || a.config1 || a.config2)
        throw BackendError("cmdev: event '" + ev.name +
                           "' needs perf attributes /dev/cmdev does not take (use --backend perf)");
    cmdev_event c{};
    c.type = a.type;
    c.config = a.config;
    c.flags = (a.exclude_user ? CMDEV_EV_EXCLUDE_USER : 0u) | (a.exclude_kernel ? CMDEV_EV_EXCLUDE_KERNEL : 0u) |
              (a.exclude_hv ? CMDEV_EV_EXCLUDE_HV : 0u);
    return c;
}

class CmdevTaskCounters final : public TaskCounters {
public:
    CmdevTaskCounters(int fd, pid_t tid)
        : fd_(fd),
          revoked_msg_("sprof: cmdev: task " + (tid ? std::to_string(tid) : std::string("self")) +
                       " executed a setuid or non-dumpable program; the kernel removed its counters there "
                       "(as for perf), so its profile ends at that exec\n") {}
    ~CmdevTaskCounters() override { ::close(fd_); }

    bool sample(RawSample& s) noexcept override {
        if (gone_) return false;
        out_.size = sizeof out_;
        if (ioctl(fd_, CMDEV_IOC_SAMPLE, &out_) < 0) {
            // EPERM: the module saw the counters removed by a privileged exec.
            // Said once, with write(2): this runs in a signal handler.
            if (errno == EPERM && !gone_) {
                const ssize_t n = ::write(STDERR_FILENO, revoked_msg_.data(), revoked_msg_.size());
                (void)n;
            }
            gone_ = true;
            return false;
        }
        s.live_mask = out_.live_mask;
        s.ref_ns = out_.task_ns;
        for (unsigned e = 0; e < kMaxEvents; ++e) {
            if (!(out_.live_mask & (1u << e))) continue;
            s.delta[e] = out_.delta[e];
            // More live events than the PMU has counters: the kernel
            // multiplexed them, and this one counted only `running` of the
            // `enabled` ns. It covers that share of the task's CPU time, so
            // the estimators scale its count as perf scales a count by
            // enabled/running, per function.
            if (out_.running[e] < out_.enabled[e]) {
                s.partial_mask |= 1u << e;
                s.cover_ns[e] = static_cast<uint64_t>(static_cast<double>(out_.task_ns) * out_.running[e] /
                                                      out_.enabled[e]);
            }
        }
        gone_ = out_.flags & CMDEV_SAMPLE_EXITED;  // these were the final values
        return true;
    }

private:
    int fd_;
    const std::string revoked_msg_;  // built before any signal handler needs it
    bool gone_ = false;
    cmdev_sample out_{};  // preallocated: sample() runs in a signal handler
};

class CmdevBackend final : public Backend {
public:
    CmdevBackend(const std::vector<EventSpec>& events, unsigned slots, Rotation rotation)
        : names_(events.size()), rotation_(rotation) {
        for (size_t e = 0; e < events.size(); ++e) {
            events_.push_back(to_cmdev_event(events[e]));
            names_[e] = events[e].name;
        }
        const auto n = static_cast<unsigned>(events.size());
        slots_ = slots == 0 || slots > n ? n : slots;
        ::close(open_device(rotation_.kind));  // fail now, not when the program is already running
    }

    std::string name() const override { return "cmdev"; }

    std::unique_ptr<TaskCounters> attach(pid_t tid, bool enable_on_exec, const TickPlan& /*the caller's ticks*/) override {
        const int fd = open_device(rotation_.kind);
        cmdev_config c{};
        c.size = sizeof c;
        c.n_events = static_cast<uint32_t>(events_.size());
        c.slots = slots_;
        c.event_size = sizeof(cmdev_event);
        c.events = reinterpret_cast<uintptr_t>(events_.data());
        if (rotation_.kind == Rotation::shuffled) {
            c.flags = CMDEV_CONFIG_SHUFFLE;
            c.seed = rotation_stream(rotation_.seed, static_cast<uint32_t>(tid ? tid : gettid()));
        }
        if (ioctl(fd, CMDEV_IOC_CONFIGURE, &c) < 0) fail(fd, "configuring " + event_list(), errno);
        cmdev_attach a{};
        a.size = sizeof a;
        a.flags = enable_on_exec ? CMDEV_ATTACH_ON_EXEC : 0;
        a.pid = tid;
        if (ioctl(fd, CMDEV_IOC_ATTACH, &a) < 0)
            fail(fd, "counting " + event_list() + " for task " + std::to_string(tid), errno);
        return std::make_unique<CmdevTaskCounters>(fd, tid);
    }

private:
    [[noreturn]] static void fail(int fd, const std::string& what, int err) {
        ::close(fd);
        std::string why = errno_text(err);
        if (err == EBUSY) why = "another session already counts this task";
        if (err == EPERM) why = "no access to this task (another user's or a setuid program needs ptrace rights)";
        if (err == EACCES)
            why = "refused at kernel.perf_event_paranoid=" + paranoid_level() +
                  ": kernel-mode events need CAP_PERFMON from level 2 (count user space only, e.g. task-clock:u), "
                  "and at level 3 only root, CAP_PERFMON and the module's gid= group may count";
        if (err == ENOENT) why = "the kernel cannot count one of these events here (no PMU?)";
        throw BackendError("cmdev: " + what + ": " + why);
    }
    std::string event_list() const {
        std::string s;
        for (const auto& n : names_) s += (s.empty() ? "" : ",") + n;
        return s;
    }

    std::vector<cmdev_event> events_;
    std::vector<std::string> names_;
    unsigned slots_ = 0;
    Rotation rotation_;
};

}  // namespace

std::unique_ptr<Backend> make_cmdev_backend(const std::vector<EventSpec>& events, unsigned slots,
                                            Rotation rotation) {
    return std::make_unique<CmdevBackend>(events, slots, rotation);
}

}  // namespace sprof

// The perf backend: one perf_event_open counter per event and task. The
// virtual counters are made here, in user space: only the live set is enabled,
// and each sample disables the outgoing and enables the incoming events.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "sprof/perf_event.hpp"
#include "sprof/backend.hpp"
#include "sprof/scheduler.hpp"

namespace sprof {
namespace {

perf_event_attr reference_attr() {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;  // the task's CPU time, in ns
    a.disabled = 1;
    return a;
}

bool read_counter(int fd, uint64_t& value) noexcept {
    ssize_t n;
    do n = read(fd, &value, sizeof value);
    while (n < 0 && errno == EINTR);
    return n == static_cast<ssize_t>(sizeof value);
}

class PerfTaskCounters final : public TaskCounters {
public:
    PerfTaskCounters(const std::vector<EventSpec>& events, unsigned slots, pid_t tid, bool on_exec)
        : sched_(static_cast<unsigned>(events.size()), slots), n_(static_cast<unsigned>(events.size())) {
        try {
            perf_event_attr ref = reference_attr();
            ref.disabled = !on_exec ? 0 : 1;
            ref.enable_on_exec = on_exec;
            ref_fd_ = open(ref, "task-clock (reference)", tid);
            for (unsigned e = 0; e < n_; ++e) {
                perf_event_attr a = events[e].attr;
                const bool live = sched_.live() & (1u << e);
                a.disabled = !(live && !on_exec);
                a.enable_on_exec = live && on_exec;
                fds_[e] = open(a, events[e].name, tid);
            }
        } catch (...) {
            close_all();
            throw;
        }
    }
    ~PerfTaskCounters() override { close_all(); }

    bool sample(RawSample& s) noexcept override {
        uint64_t ref_now;
        if (!read_counter(ref_fd_, ref_now)) return false;
        s.ref_ns = ref_now - ref_last_;
        ref_last_ = ref_now;
        const uint32_t live = sched_.live();
        s.live_mask = live;
        for (unsigned e = 0; e < n_; ++e) {
            if (!(live & (1u << e))) continue;
            uint64_t v;
            if (!read_counter(fds_[e], v)) return false;
            s.delta[e] = v - last_[e];
            last_[e] = v;  // a disabled counter holds its value, so this is also its base when live again
        }
        const uint32_t next = sched_.next();
        if (next != live) {
            for (unsigned e = 0; e < n_; ++e) {
                const uint32_t bit = 1u << e;
                if ((live & bit) && !(next & bit)) ioctl(fds_[e], PERF_EVENT_IOC_DISABLE, 0);
                if (!(live & bit) && (next & bit)) ioctl(fds_[e], PERF_EVENT_IOC_ENABLE, 0);
            }
        }
        sched_.advance();
        return true;
    }

private:
    int open(const perf_event_attr& a, const std::string& name, pid_t tid) {
        int fd = perf_event_open_task(a, tid);
        if (fd < 0) throw BackendError(perf_open_error(name, a, -fd));
        return fd;
    }
    void close_all() noexcept {
        if (ref_fd_ >= 0) ::close(ref_fd_);
        for (int& fd : fds_)
            if (fd >= 0) ::close(fd), fd = -1;
        ref_fd_ = -1;
    }

    LiveSetScheduler sched_;
    unsigned n_;
    int ref_fd_ = -1;
    uint64_t ref_last_ = 0;
    int fds_[kMaxEvents] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    uint64_t last_[kMaxEvents] = {};
};

class PerfBackend final : public Backend {
public:
    PerfBackend(std::vector<EventSpec> events, unsigned slots) : events_(std::move(events)), slots_(slots) {}
    std::string name() const override { return "perf"; }
    std::unique_ptr<TaskCounters> attach(pid_t tid, bool enable_on_exec) override {
        return std::make_unique<PerfTaskCounters>(events_, slots_, tid, enable_on_exec);
    }

private:
    std::vector<EventSpec> events_;
    unsigned slots_;
};

}  // namespace

std::unique_ptr<Backend> make_perf_backend(const std::vector<EventSpec>& events, unsigned slots) {
    return std::make_unique<PerfBackend>(events, slots);
}

}  // namespace sprof

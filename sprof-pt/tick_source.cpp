#include "tick_source.hpp"

#include <fcntl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sprof/clock.hpp"
#include "sprof/perf_event.hpp"
#include "sprof/program_counter.hpp"

namespace sprof::pt {
namespace {

constexpr size_t kDataPages = 1;  // one record per tick, consumed at every tick

// PERF_RECORD_SAMPLE with PERF_SAMPLE_READ (the timer's own count) and
// PERF_SAMPLE_REGS_USER of one register.
struct PcRecord {
    perf_event_header header;
    uint64_t cpu_ns;
    uint64_t abi;
    uint64_t pc;
};

}  // namespace

CpuTicker::CpuTicker(pid_t tid, const TickPlan& ticks, int signo, bool enable_on_exec)
    : dither_(ticks, static_cast<uint32_t>(tid)) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;  // hrtimer-precise CPU time of that thread, not tick-bound
    a.sample_period = dither_.first();
    a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER;  // the user PC even when the tick hits in the kernel
    a.sample_regs_user = 1ull << kPcRegister;
    a.wakeup_events = 1;
    a.disabled = enable_on_exec ? 1 : 0;
    a.enable_on_exec = enable_on_exec ? 1 : 0;
    apply_counting_scope(a);
    fd_ = perf_event_open_task(a, tid);
    if (fd_ < 0) throw std::runtime_error(perf_open_error("task-clock (sampling timer)", a, -fd_));
    int err = -ring_.map(fd_, kDataPages);
    if (!err) err = route_overflow_signal(fd_, signo, F_OWNER_PID, getpid());
    if (err) {
        ring_.unmap();
        close(fd_);
        throw std::runtime_error(std::string("cannot route timer ticks to the monitor: ") + std::strerror(err));
    }
}

CpuTicker::~CpuTicker() {
    ring_.unmap();
    if (fd_ >= 0) close(fd_);
}

bool CpuTicker::take_pc(uint64_t& pc) {
    bool found = false;
    uint64_t tick_cpu_ns = 0;
    ring_.consume([&](const perf_event_header& h, const unsigned char* rec) {
        PcRecord r;
        if (h.type != PERF_RECORD_SAMPLE || h.size < sizeof r) return;
        std::memcpy(&r, rec, sizeof r);
        tick_cpu_ns = r.cpu_ns;
        if (r.abi == PERF_SAMPLE_REGS_ABI_NONE) return;  // a kernel thread: no user registers
        pc = r.pc;
        found = true;
    });
    if (uint64_t now_cpu_ns;
        found && dither_.varies() && read(fd_, &now_cpu_ns, sizeof now_cpu_ns) == sizeof now_cpu_ns)
        dither_.retime(fd_, now_cpu_ns - tick_cpu_ns);
    return found;
}

WallTicker::WallTicker(const TickPlan& ticks) : dither_(ticks, static_cast<uint32_t>(getpid())) {
    fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error(std::string("timerfd_create: ") + std::strerror(errno));
    deadline_ns_ = monotonic_ns();
    try {
        arm();
    } catch (...) {
        close(fd_);
        throw;
    }
}

WallTicker::~WallTicker() {
    if (fd_ >= 0) close(fd_);
}

bool WallTicker::take() {
    uint64_t expirations;
    if (read(fd_, &expirations, sizeof expirations) != sizeof expirations) return false;
    arm();
    return true;
}

void WallTicker::arm() {
    deadline_ns_ += dither_.next();
    // A monitor late by more than a period starts the ticks afresh from now.
    if (const uint64_t now = monotonic_ns(); deadline_ns_ <= now) deadline_ns_ = now + dither_.next();
    itimerspec its{};
    its.it_value.tv_sec = static_cast<time_t>(deadline_ns_ / 1'000'000'000u);
    its.it_value.tv_nsec = static_cast<long>(deadline_ns_ % 1'000'000'000u);
    if (timerfd_settime(fd_, TFD_TIMER_ABSTIME, &its, nullptr) != 0)
        throw std::runtime_error(std::string("timerfd_settime: ") + std::strerror(errno));
}

}  // namespace sprof::pt

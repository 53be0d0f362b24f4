#include "tick_source.hpp"

#include <fcntl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sprof/perf_event.hpp"
#include "sprof/program_counter.hpp"

namespace sprof::pt {
namespace {

constexpr size_t kDataPages = 1;  // one record per tick, consumed at every tick

// PERF_RECORD_SAMPLE with PERF_SAMPLE_REGS_USER of one register.
struct PcRecord {
    perf_event_header header;
    uint64_t abi;
    uint64_t pc;
};

}  // namespace

CpuTicker::CpuTicker(pid_t tid, uint64_t period_ns, int signo, bool enable_on_exec) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;  // hrtimer-precise CPU time of that thread, not tick-bound
    a.sample_period = period_ns;
    a.sample_type = PERF_SAMPLE_REGS_USER;  // the user PC even when the tick hits in the kernel
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
    ring_.consume([&](const perf_event_header& h, const unsigned char* rec) {
        PcRecord r;
        if (h.type != PERF_RECORD_SAMPLE || h.size < sizeof r) return;
        std::memcpy(&r, rec, sizeof r);
        if (r.abi == PERF_SAMPLE_REGS_ABI_NONE) return;  // a kernel thread: no user registers
        pc = r.pc;
        found = true;
    });
    return found;
}

int open_wall_ticker(uint64_t period_ns) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) throw std::runtime_error(std::string("timerfd_create: ") + std::strerror(errno));
    itimerspec its{};
    its.it_interval.tv_sec = static_cast<time_t>(period_ns / 1'000'000'000u);
    its.it_interval.tv_nsec = static_cast<long>(period_ns % 1'000'000'000u);
    its.it_value = its.it_interval;
    if (timerfd_settime(fd, 0, &its, nullptr) != 0) {
        int err = errno;
        close(fd);
        throw std::runtime_error(std::string("timerfd_settime: ") + std::strerror(err));
    }
    return fd;
}

}  // namespace sprof::pt

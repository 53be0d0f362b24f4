#include "tick_source.hpp"

#include <asm/perf_regs.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sprof/perf_event.hpp"

namespace sprof::pt {
namespace {

#if defined(__x86_64__)
constexpr uint64_t kPcRegister = PERF_REG_X86_IP;
#elif defined(__aarch64__)
constexpr uint64_t kPcRegister = PERF_REG_ARM64_PC;
#else
#error "sprof_pt: no perf register number for the program counter on this architecture"
#endif

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
    fd_ = perf_event_open_task(a, tid);
    if (fd_ < 0) throw std::runtime_error(perf_open_error("task-clock (sampling timer)", a, -fd_));
    const long page = sysconf(_SC_PAGESIZE);
    ring_bytes_ = static_cast<size_t>(page) * (1 + kDataPages);
    ring_ = mmap(nullptr, ring_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    f_owner_ex owner{F_OWNER_PID, getpid()};
    if (ring_ == MAP_FAILED || fcntl(fd_, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd_, F_SETSIG, signo) != 0 ||
        fcntl(fd_, F_SETOWN_EX, &owner) != 0) {
        int err = errno;
        if (ring_ == MAP_FAILED) ring_ = nullptr;
        release();
        throw std::runtime_error(std::string("cannot route timer ticks to the monitor: ") + std::strerror(err));
    }
}

CpuTicker::~CpuTicker() { release(); }

void CpuTicker::release() {
    if (ring_) munmap(ring_, ring_bytes_);
    if (fd_ >= 0) close(fd_);
    ring_ = nullptr;
    fd_ = -1;
}

bool CpuTicker::take_pc(uint64_t& pc) {
    auto* meta = static_cast<perf_event_mmap_page*>(ring_);
    const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    const auto* data = static_cast<const unsigned char*>(ring_) + meta->data_offset;
    const uint64_t size = meta->data_size;
    bool found = false;
    while (tail < head) {
        perf_event_header h;
        for (size_t i = 0; i < sizeof h; ++i) reinterpret_cast<unsigned char*>(&h)[i] = data[(tail + i) % size];
        if (h.size == 0) break;
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(PcRecord)) {
            PcRecord r;
            for (size_t i = 0; i < sizeof r; ++i) reinterpret_cast<unsigned char*>(&r)[i] = data[(tail + i) % size];
            if (r.abi != PERF_SAMPLE_REGS_ABI_NONE) {  // NONE: a kernel thread, no user registers
                pc = r.pc;
                found = true;
            }
        }
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
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

// The perf backend: the task's counters are one perf_event group. Its leader
// is a task-clock counter (the reference time); the members are the events.
// The virtual counters are made here, in user space: only the live set of
// members is enabled, and every sample disables the outgoing and enables the
// incoming events. Disabled members hold their value, so one group read gives
// every event's delta since the last one.
//
// With a sample period the leader also takes the ticks: at every overflow the
// kernel writes a record with the task's user PC and the whole group's values
// of that instant into a ring buffer. The PC and the counters of a sample are
// then taken at the same moment, however late the tick is noticed (a signal
// blocked by the program, a monitor on a busy machine).
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "sprof/backend.hpp"
#include "sprof/perf_event.hpp"
#include "sprof/perf_ring.hpp"
#include "sprof/program_counter.hpp"
#include "sprof/scheduler.hpp"

namespace sprof {
namespace {


// Two data pages hold ~100 records of a 4-event group: a second of blocked
// ticks at 10 ms. More would cost locked memory per thread (perf_event_mlock_kb).
constexpr size_t kRingDataPages = 2;

// The group's values in read order (PERF_FORMAT_GROUP): [0] the leader's
// task-clock ns, [1 + e] event e.
struct GroupValues {
    uint64_t nr = 0;
    uint64_t v[1 + kMaxEvents] = {};
};

perf_event_attr leader_attr(uint64_t period_ns, bool on_exec) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;  // the task's CPU time in ns, hrtimer-precise (not tick-bound)
    a.read_format = PERF_FORMAT_GROUP;
    // Only the leader waits for the exec: members never carry enable_on_exec,
    // so events rotated out before an exec cannot come back on at it.
    a.disabled = 1;
    a.enable_on_exec = on_exec;
    if (period_ns) {
        a.sample_period = period_ns;
        a.wakeup_events = 1;
        a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER;
        a.sample_regs_user = 1ull << kPcRegister;  // the user PC even when the tick hits in the kernel
        a.use_clockid = 1;
        a.clockid = CLOCK_MONOTONIC;  // record times on the runs' clock
    }
    apply_counting_scope(a);
    return a;
}

class PerfTaskCounters final : public TaskCounters {
public:
    PerfTaskCounters(const std::vector<EventSpec>& events, unsigned slots, Rotation rotation, pid_t tid,
                     bool on_exec, const TickPlan& ticks)
        : sched_(static_cast<unsigned>(events.size()), slots, rotation.kind,
                 rotation_stream(rotation.seed, static_cast<uint32_t>(tid ? tid : gettid()))),
          n_(static_cast<unsigned>(events.size())),
          dither_(ticks, static_cast<uint32_t>(tid ? tid : gettid())) {
        const uint64_t period_ns = dither_.first();
        try {
            const perf_event_attr leader = leader_attr(period_ns, on_exec);
            leader_fd_ = open(leader, period_ns ? "task-clock (sampling timer)" : "task-clock (reference)", tid, -1);
            for (unsigned e = 0; e < n_; ++e) {
                perf_event_attr a = events[e].attr;
                a.disabled = !(sched_.live() & (1u << e));
                a.enable_on_exec = 0;
                a.use_clockid = leader.use_clockid;  // the kernel wants one clock in a group
                a.clockid = leader.clockid;
                fds_[e] = open(a, events[e].name, tid, leader_fd_);
            }
            if (period_ns) {
                if (int err = ring_.map(leader_fd_, kRingDataPages); err < 0)
                    throw BackendError(std::string("cannot map the sample buffer: ") + std::strerror(-err) +
                                       (err == -EPERM ? " (locked-memory limit: raise ulimit -l)" : ""));
            }
            // The lib runtime enables after routing the tick signal; sprof_pt's exec does it.
            if (!on_exec && !period_ns) ioctl(leader_fd_, PERF_EVENT_IOC_ENABLE, 0);
        } catch (...) {
            close_all();
            throw;
        }
    }
    ~PerfTaskCounters() override { close_all(); }

    int tick_fd() const override { return ring_.mapped() ? leader_fd_ : -1; }

    bool sample(RawSample& s) noexcept override {
        GroupValues now;
        if (!read_group(now)) return false;
        take(s, now);
        // Nothing has counted yet (the exec that enables the group is still
        // ahead): the first live set stays.
        if (now.v[0] != 0) rotate();
        return true;
    }

    bool drain(SampleSink& sink) noexcept override {
        RawSample pending;
        bool have = false;
        ring_.consume([&](const perf_event_header& h, const unsigned char* rec) {
            if (h.type == PERF_RECORD_LOST) {
                uint64_t lost[2];  // id, count
                std::memcpy(lost, rec + sizeof h, sizeof lost);
                sink.lost(lost[1]);
                return;
            }
            if (h.type != PERF_RECORD_SAMPLE) return;  // throttling notes and the like
            RawSample s;
            if (!parse_sample(h, rec, s)) return;
            if (have) sink.put(pending);
            pending = s;
            have = true;
        });
        if (!have) return true;  // no tick since the last call: no rotation either
        sink.put(pending);
        const bool rotating = sched_.next() != sched_.live();
        // One group read serves both: the CPU time since the tick for the
        // next period, the counts for the rotation. Neither: no read.
        GroupValues now;
        const bool counting = (rotating || dither_.varies()) && read_group(now);
        if (counting) dither_.retime(leader_fd_, now.v[0] - base_.v[0]);  // base_: the last tick's values
        if (!rotating) {  // the next record takes all
            sched_.advance();
            return true;
        }
        // The live set changes now, between two ticks: what it counted since
        // the last tick goes into the next tick's sample as a part of it.
        if (!counting) return false;
        if (now.v[0] == 0) return true;  // nothing has counted yet (the enabling exec is ahead)
        const uint32_t live = sched_.live();
        part_.ref_ns = now.v[0] - base_.v[0];
        part_.mask = live;
        for (unsigned e = 0; e < n_; ++e)
            if (live & (1u << e)) part_.delta[e] = now.v[1 + e] - base_.v[1 + e];
        base_ = now;
        rotate();
        return true;
    }

    bool tail(RawSample& s) noexcept override {
        GroupValues now;
        if (!read_group(now) || (now.v[0] == base_.v[0] && part_.ref_ns == 0)) return false;
        take(s, now);
        return s.ref_ns > 0;
    }

private:
    int open(const perf_event_attr& a, const std::string& name, pid_t tid, int group) {
        int fd = perf_event_open_task(a, tid, group);
        if (fd < 0) throw BackendError(perf_open_error(name, a, -fd));
        return fd;
    }

    bool read_group(GroupValues& g) noexcept {
        const size_t want = sizeof(uint64_t) * (2 + n_);
        ssize_t n;
        do n = read(leader_fd_, &g, want);
        while (n < 0 && errno == EINTR);
        return n == static_cast<ssize_t>(want) && g.nr == 1 + n_;
    }

    // A PERF_RECORD_SAMPLE of leader_attr: time, group read, user registers.
    bool parse_sample(const perf_event_header& h, const unsigned char* rec, RawSample& s) noexcept {
        const size_t words = (h.size - sizeof h) / sizeof(uint64_t);
        uint64_t w[3 + 1 + kMaxEvents + 2];
        if (words < 2 + 1 + n_ + 1 || words > sizeof w / sizeof w[0]) return false;
        std::memcpy(w, rec + sizeof h, words * sizeof(uint64_t));
        GroupValues g;
        g.nr = w[1];
        if (g.nr != 1 + n_) return false;
        std::memcpy(g.v, &w[2], g.nr * sizeof(uint64_t));
        const size_t regs = 2 + g.nr;
        const uint64_t abi = w[regs];
        if (abi == PERF_SAMPLE_REGS_ABI_NONE || words < regs + 2) return false;  // no user context
        s.wall_ns = w[0];
        s.pc = w[regs + 1];
        take(s, g);
        return true;
    }

    // The deltas since the previous take, for the live set, plus the part
    // counted before the last rotation.
    void take(RawSample& s, const GroupValues& g) noexcept {
        const uint64_t since_base = g.v[0] - base_.v[0];
        const uint32_t live = sched_.live();
        s.ref_ns = since_base + part_.ref_ns;
        s.live_mask = live | part_.mask;
        s.partial_mask = part_.ref_ns ? live ^ part_.mask : 0;  // live in one of the two stretches only
        for (unsigned e = 0; e < n_; ++e) {
            const uint32_t bit = 1u << e;
            uint64_t d = 0;
            if (live & bit) d += g.v[1 + e] - base_.v[1 + e];
            if (part_.mask & bit) d += part_.delta[e];
            s.delta[e] = d;
            if (s.partial_mask & bit) s.cover_ns[e] = live & bit ? since_base : part_.ref_ns;
        }
        base_ = g;
        part_ = Part{};
    }

    void rotate() noexcept {
        const uint32_t live = sched_.live();
        const uint32_t next = sched_.next();
        if (next != live) {
            // A member enabled while its group runs only starts counting when
            // the group is next scheduled in (measured on Linux 6.18 with a
            // task-clock leader and software members: never, while the task
            // keeps its CPU). Taking the group off and on again around the
            // change makes the new live set count at once.
            ioctl(leader_fd_, PERF_EVENT_IOC_DISABLE, 0);
            for (unsigned e = 0; e < n_; ++e) {
                const uint32_t bit = 1u << e;
                if ((live & bit) && !(next & bit)) ioctl(fds_[e], PERF_EVENT_IOC_DISABLE, 0);
                if (!(live & bit) && (next & bit)) ioctl(fds_[e], PERF_EVENT_IOC_ENABLE, 0);
            }
            ioctl(leader_fd_, PERF_EVENT_IOC_ENABLE, 0);
        }
        sched_.advance();
    }

    void close_all() noexcept {
        ring_.unmap();
        for (int& fd : fds_)
            if (fd >= 0) ::close(fd), fd = -1;
        if (leader_fd_ >= 0) ::close(leader_fd_);
        leader_fd_ = -1;
    }

    LiveSetScheduler sched_;
    unsigned n_;
    int leader_fd_ = -1;
    int fds_[kMaxEvents] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    GroupValues base_;  // values at the last take or rotation
    // Counted between the last tick and a rotation that followed it: part of
    // the next tick's sampling interval, under the live set of before.
    struct Part {
        uint64_t ref_ns = 0;
        uint32_t mask = 0;
        uint64_t delta[kMaxEvents] = {};
    } part_;
    PerfRing ring_;
    TickDither dither_;
};

class PerfBackend final : public Backend {
public:
    PerfBackend(std::vector<EventSpec> events, unsigned slots, Rotation rotation)
        : events_(std::move(events)), slots_(slots), rotation_(rotation) {}
    std::string name() const override { return "perf"; }
    std::unique_ptr<TaskCounters> attach(pid_t tid, bool enable_on_exec, const TickPlan& ticks) override {
        return std::make_unique<PerfTaskCounters>(events_, slots_, rotation_, tid, enable_on_exec, ticks);
    }

private:
    std::vector<EventSpec> events_;
    unsigned slots_;
    Rotation rotation_;
};

}  // namespace

std::unique_ptr<Backend> make_perf_backend(const std::vector<EventSpec>& events, unsigned slots, Rotation rotation) {
    return std::make_unique<PerfBackend>(events, slots, rotation);
}

}  // namespace sprof

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
//
// Events that sample themselves (EventSpec::self_sampled) are members with a
// period of their own: every `period` events the kernel writes the same kind
// of record (PC and the whole group's values) into a second ring. Read in
// time order with the ticks, each record charges the self-sampled events
// counted since the previous record to its own PC, so a burst of page faults
// at a call's start lands on the function that faulted, not on the function
// of the next tick. The records have a ring of their own so that a burst
// never crowds a tick out; one lost costs nothing but where its events are
// charged (the next record's values hold them). The period follows the
// event's rate, so that a tick holds about kRecordsPerTick records, and
// starts from the fastest rate of the event's kind (fastest_rate), so that
// the kernel never throttles it: page faults at 16, instructions at 160,000.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
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
// With call chains a record grows by 8 bytes a frame: eight pages hold a
// second of blocked ticks of ~80 frames each.
constexpr size_t kChainRingDataPages = 8;
// The events' own records: sixteen pages hold ~680 of a 5-event group, ten
// ticks' worth at kRecordsPerTick, so that a burst that comes after a quiet
// stretch (its period made for the quiet) still fits; fewer where locked
// memory is short. The records are read at the ticks only: a wakeup at a
// watermark would signal the thread at every record (the kernel signals an
// event with an owner at each overflow).
constexpr size_t kEventRingDataPages = 16;
// Records per tick the periods aim at: with the events of a tick's stretch
// cut into this many records, what a call boundary can misplace is under
// 1/kRecordsPerTick of the events around it.
constexpr double kRecordsPerTick = 64;
constexpr double kPeakDecay = 0.973;  // per tick: halved in 25
// Records per CPU second of one event at most: kRecordsPerTick of a 10 ms
// tick (the default). Shorter ticks buy no more records: every record costs
// the writer thread about what a tick does, and on the arm64 guest (one
// CPU, scripts/pmu-test) instructions at 64 records of a 1 ms tick starved
// it until the ticks' ring overflowed (74 % of the ticks lost, their counts
// with them). It also keeps an event far below the rate at which the kernel
// throttles it (perf_event_max_sample_rate: 100,000 by default, which the
// kernel lowers when its sampling interrupts take long: 25,250 there).
constexpr double kMaxRecordsPerSecond = 6400;
// A sample's layout: PERF_SAMPLE_IDENTIFIER | TIME | READ | REGS_USER, and
// CALLCHAIN (between READ and REGS_USER) when call chains are asked for.
constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER;

// The group's values in read order (PERF_FORMAT_GROUP): [0] the leader's
// task-clock ns, [1 + e] event e.
struct GroupValues {
    uint64_t nr = 0;
    uint64_t v[1 + kMaxEvents] = {};
};

perf_event_attr leader_attr(uint64_t period_ns, bool on_exec, unsigned call_depth) {
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
        a.sample_type = kSampleType;
        a.sample_regs_user = 1ull << kPcRegister;  // the user PC even when the tick hits in the kernel
        a.use_clockid = 1;
        a.clockid = CLOCK_MONOTONIC;  // record times on the runs' clock
        // Walked by the kernel at the tick itself, not where a late signal finds the thread.
        apply_call_chain(a, call_depth);
    }
    apply_counting_scope(a);
    return a;
}

// The period of a self-sampled event until its rate is known: at the
// fastest its kind can count (a fault every µs, a PMU event at 10^10 a
// second) it makes ~250 records per scheduler tick (4 ms), under the 400 at
// which the kernel throttles it (perf_event_max_sample_rate 100,000 / HZ
// 250). It comes down as the peak it stands for decays (retune_periods), not
// at the first quiet tick.
uint64_t first_period(const EventSpec& ev) {
    constexpr double kSchedulerTickS = 0.004, kFirstRecordsPerSchedulerTick = 250;
    return static_cast<uint64_t>(std::max(1.0, fastest_rate(ev) * kSchedulerTickS / kFirstRecordsPerSchedulerTick));
}

// A member that samples itself: the leader's record layout and clock, no
// wakeups (the ticks' signal drains both rings).
perf_event_attr self_sampling_attr(const EventSpec& ev, const perf_event_attr& leader) {
    perf_event_attr a = ev.attr;
    a.sample_period = first_period(ev);
    a.sample_type = leader.sample_type;  // with the leader's call chains, if any
    a.exclude_callchain_kernel = leader.exclude_callchain_kernel;
    a.sample_max_stack = leader.sample_max_stack;
    a.read_format = PERF_FORMAT_GROUP;  // a record holds the whole group's values
    a.sample_regs_user = leader.sample_regs_user;
    a.wakeup_events = 0;
    return a;
}

class PerfTaskCounters final : public TaskCounters {
public:
    PerfTaskCounters(const std::vector<EventSpec>& events, unsigned slots, Rotation rotation, pid_t tid,
                     bool on_exec, const TickPlan& ticks, unsigned call_depth)
        : sched_(static_cast<unsigned>(events.size()), slots, rotation.kind,
                 rotation_stream(rotation.seed, static_cast<uint32_t>(tid ? tid : gettid()))),
          n_(static_cast<unsigned>(events.size())),
          dither_(ticks, static_cast<uint32_t>(tid ? tid : gettid())) {
        const uint64_t period_ns = dither_.first();
        try {
            const perf_event_attr leader = leader_attr(period_ns, on_exec, call_depth);
            chains_ = (leader.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
            leader_fd_ = open(leader, period_ns ? "task-clock (sampling timer)" : "task-clock (reference)", tid, -1);
            unsigned live_counters = 0;  // live members so far that take a PMU counter
            for (unsigned e = 0; e < n_; ++e) {
                // Only where the leader takes ticks: the records are read at them.
                const bool self_sampled = events[e].self_sampled && period_ns;
                perf_event_attr a = self_sampled ? self_sampling_attr(events[e], leader) : events[e].attr;
                a.disabled = !(sched_.live() & (1u << e));
                a.enable_on_exec = 0;
                a.use_clockid = leader.use_clockid;  // the kernel wants one clock in a group
                a.clockid = leader.clockid;
                fds_[e] = open_member(a, events[e].name, tid, live_counters);
                live_counters += !a.disabled && takes_a_counter(a) ? 1 : 0;
                if (self_sampled) {
                    sampled_ |= 1u << e;
                    period_[e] = a.sample_period;
                    peak_[e] = static_cast<double>(a.sample_period) * kRecordsPerTick;
                    ioctl(fds_[e], PERF_EVENT_IOC_ID, &ids_[e]);
                }
            }
            if (period_ns) {
                map_ring(ring_, leader_fd_, chains_ ? kChainRingDataPages : kRingDataPages);
            }
            int first = -1;  // the first self-sampled member holds the ring the others write to
            for (unsigned e = 0; e < n_; ++e) {
                if (!(sampled_ & (1u << e))) continue;
                if (first < 0) {
                    first = fds_[e];
                    map_event_ring(first);
                } else if (ioctl(fds_[e], PERF_EVENT_IOC_SET_OUTPUT, first) != 0) {
                    throw BackendError("cannot send " + events[e].name + "'s samples to one buffer: " +
                                       std::strerror(errno));
                }
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
        bool have = false;
        {
            PerfRing::Reader ticks(ring_), records(event_ring_);
            Record tick;
            bool tick_waits = false;
            while (next_sample(ticks, tick, &sink)) {
                // A tick the sink has no room for waits in the kernel's ring:
                // taken and dropped, its counts would be lost; waiting, at
                // worst the ring overflows and the next tick's values hold them.
                if (sink.room() == 0) {
                    tick_waits = true;
                    break;
                }
                ticks.take();
                // The events' records before the tick, then the tick.
                Record rec;
                while (next_sample(records, rec, nullptr) && rec.time <= tick.time) {
                    records.take();
                    charge_record(rec, sink);
                }
                put_pending(sink);
                RawSample s;
                s.wall_ns = tick.time;
                s.pc = tick.pc;
                take_chain(s, tick);
                take(s, tick.values);
                sink.put(s);
                have = true;
            }
            // Records after the last tick: charged now, in order, before any
            // rotation below changes what they count (not while a tick waits:
            // they come after it).
            Record rec;
            while (!tick_waits && next_sample(records, rec, nullptr)) {
                records.take();
                charge_record(rec, sink);
            }
            put_pending(sink);
        }
        if (!have) return true;  // no tick since the last call: no rotation either
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
            if (live & (1u << e)) part_.delta[e] = since_last(e, now);
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

    // A member of the leader's group. The kernel refuses (EINVAL) a live
    // member that takes a counter when the group's live events would not fit
    // the PMU at once; an event that opens alone was refused for that, not
    // for itself.
    int open_member(const perf_event_attr& a, const std::string& name, pid_t tid, unsigned live_before) {
        const int fd = perf_event_open_task(a, tid, leader_fd_);
        if (fd == -EINVAL && !a.disabled && takes_a_counter(a)) {
            perf_event_attr alone = a;
            alone.disabled = 1;
            const int probe = perf_event_open_task(alone, tid, -1);
            if (probe >= 0) {
                ::close(probe);
                throw BackendError(perf_group_error(name, live_before));
            }
        }
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

    // A record of the tick ring or the events' ring, parsed.
    struct Record {
        uint64_t id = 0;    // the event that wrote it (PERF_EVENT_IOC_ID)
        uint64_t time = 0;  // CLOCK_MONOTONIC
        uint64_t pc = 0;    // the task's user PC
        GroupValues values;
        uint32_t depth = 0;  // the user call chain, when asked for (RawSample::chain)
        uint64_t chain[kMaxCallDepth];
    };

    static void take_chain(RawSample& s, const Record& r) noexcept {
        s.depth = r.depth;
        std::memcpy(s.chain, r.chain, r.depth * sizeof r.chain[0]);
    }

    // The next sample record of `ring` (PERF_SAMPLE_IDENTIFIER, TIME, READ
    // of the group, REGS_USER), not yet taken; others are taken on the way:
    // lost records, which the tick ring reports to `lost_to` (in the events'
    // ring they cost only where their events are charged: the next record
    // holds them), throttling notes (too_many_records()) and the like. A
    // record without a user context (none to charge) is taken and skipped
    // too: its time and counts go with the next one.
    bool next_sample(PerfRing::Reader& ring, Record& r, SampleSink* lost_to) noexcept {
        perf_event_header h;
        alignas(8) unsigned char rec[PerfRing::kMaxRecord];
        while (ring.peek(h, rec)) {
            if (h.type == PERF_RECORD_SAMPLE && parse_sample(h, rec, r)) return true;
            if (h.type == PERF_RECORD_LOST) {
                uint64_t lost[2];  // id, count
                std::memcpy(lost, rec + sizeof h, sizeof lost);
                if (lost_to) lost_to->lost(lost[1]);
                else too_many_records();  // the events' ring filled up between two ticks
            }
            if (h.type == PERF_RECORD_THROTTLE) too_many_records();
            ring.take();
        }
        return false;
    }

    // The records came faster than the events' ring holds between two
    // ticks, or than the kernel allows (perf_event_max_sample_rate: since
    // Linux 6.16 it then stops the whole group until the next scheduler
    // tick, the reference clock included, so what happens until then is
    // neither counted nor timed). Every self-sampled event's period goes up
    // eightfold at once (the peaks with them, so the next retune keeps it).
    void too_many_records() noexcept {
        for (unsigned e = 0; e < n_; ++e) {
            if (!(sampled_ & (1u << e))) continue;
            uint64_t period = period_[e] * 8;
            if (ioctl(fds_[e], PERF_EVENT_IOC_PERIOD, &period) == 0) period_[e] = period;
            peak_[e] = std::max(peak_[e], static_cast<double>(period_[e]) * kRecordsPerTick);
        }
    }

    bool parse_sample(const perf_event_header& h, const unsigned char* rec, Record& r) noexcept {
        const size_t words = (h.size - sizeof h) / sizeof(uint64_t);
        uint64_t w[PerfRing::kMaxRecord / sizeof(uint64_t)];
        if (words < 3 + 1 + n_ + 1 || words > sizeof w / sizeof w[0]) return false;
        std::memcpy(w, rec + sizeof h, words * sizeof(uint64_t));
        r.id = w[0];
        r.time = w[1];
        r.values.nr = w[2];
        if (r.values.nr != 1 + n_) return false;
        std::memcpy(r.values.v, &w[3], r.values.nr * sizeof(uint64_t));
        size_t regs = 3 + r.values.nr;
        r.depth = 0;
        if (chains_) {
            const size_t taken = read_call_chain(&w[regs], words - regs, r.chain, kMaxCallDepth);
            if (taken == SIZE_MAX) return false;
            r.depth = static_cast<uint32_t>(taken);
            regs += 1 + w[regs];
        }
        if (words < regs + 2 || w[regs] == PERF_SAMPLE_REGS_ABI_NONE) return false;  // no user context
        r.pc = w[regs + 1];
        return true;
    }

    // An event's own record: the self-sampled events since the previous
    // record go to its PC, joined to the pending record when that one was
    // at the same PC. When the sink is short of room the record is left
    // out: its events go with the next one (the tick at the latest).
    void charge_record(const Record& r, SampleSink& sink) noexcept {
        unsigned overflowed = n_;
        for (unsigned e = 0; e < n_; ++e)
            if (ids_[e] == r.id && (sampled_ & (1u << e))) overflowed = e;
        if (overflowed == n_) return;
        if (pending_.live_mask && pending_.pc != r.pc) put_pending(sink);
        if (!pending_.live_mask && sink.room() <= kRoomForTicks) return;
        const uint32_t live = sched_.live() & sampled_;
        const bool joined = pending_.live_mask != 0;
        for (unsigned e = 0; e < n_; ++e) {
            const uint32_t bit = 1u << e;
            if (!(live & bit)) continue;
            const uint64_t d = since_last(e, r.values);
            window_[e] += d;
            pending_.delta[e] += d;
            // Where along the stretch since the previous record its events
            // happened is known only for the last event of the one that
            // overflowed here; a record joined to one at the same PC began there.
            if (!joined) pending_.cover_ns[e] += e == overflowed && d ? d - 1 : d;
            pending_.live_mask |= bit;
        }
        pending_.pc = r.pc;
        pending_.wall_ns = r.time;
        take_chain(pending_, r);
    }

    void put_pending(SampleSink& sink) noexcept {
        if (!pending_.live_mask) return;
        pending_.tick = false;
        pending_.ref_ns = 0;
        pending_.partial_mask = 0;
        sink.put(pending_);
        pending_ = RawSample{};
    }

    // Event e's count since it was last charged: since the last record of
    // either kind for a self-sampled event, since the last tick (or
    // rotation) otherwise. A self-sampled event's mark only moves forward,
    // so a record read out of order never charges a count twice.
    uint64_t since_last(unsigned e, const GroupValues& g) noexcept {
        const uint64_t v = g.v[1 + e];
        if (!(sampled_ & (1u << e))) return v - base_.v[1 + e];
        const uint64_t d = v > event_mark_[e] ? v - event_mark_[e] : 0;
        event_mark_[e] = std::max(event_mark_[e], v);
        return d;
    }

    // At a tick: each live self-sampled event's period from its busiest
    // recent ticks, so that a burst like the last one fills about
    // kRecordsPerTick records. The peak decays slowly (halved in ~25 ticks):
    // a program that bursts now and then would otherwise meet each burst
    // with a period made for the quiet between them, and overflow the ring.
    // Never shorter than kMaxRecordsPerSecond allows at the tick's rate
    // (ref_ns: the tick's CPU time).
    void retune_periods(uint64_t ref_ns) noexcept {
        const uint32_t live = sched_.live() & sampled_;
        for (unsigned e = 0; e < n_; ++e) {
            if (!(live & (1u << e))) continue;
            peak_[e] = std::max(kPeakDecay * peak_[e], static_cast<double>(window_[e]));
            const double floor = ref_ns ? window_[e] * 1e9 / (static_cast<double>(ref_ns) * kMaxRecordsPerSecond) : 0;
            window_[e] = 0;
            const auto want = static_cast<uint64_t>(std::max({1.0, floor, peak_[e] / kRecordsPerTick}));
            // Within a factor of two of the current one: no system call.
            if (want < 2 * period_[e] && 2 * want > period_[e]) continue;
            uint64_t period = want;
            if (ioctl(fds_[e], PERF_EVENT_IOC_PERIOD, &period) == 0) period_[e] = want;
        }
    }

    // The deltas since the previous take (a self-sampled event's since its
    // last record), for the live set, plus the part counted before the last
    // rotation; then the self-sampled events' periods for the next tick.
    void take(RawSample& s, const GroupValues& g) noexcept {
        const uint64_t since_base = g.v[0] - base_.v[0];
        const uint32_t live = sched_.live();
        s.ref_ns = since_base + part_.ref_ns;
        s.live_mask = live | part_.mask;
        s.partial_mask = part_.ref_ns ? live ^ part_.mask : 0;  // live in one of the two stretches only
        for (unsigned e = 0; e < n_; ++e) {
            const uint32_t bit = 1u << e;
            uint64_t d = 0;
            if (live & bit) d += since_last(e, g);
            if (part_.mask & bit) d += part_.delta[e];
            s.delta[e] = d;
            if (sampled_ & bit) window_[e] += d;
            if (s.partial_mask & bit) s.cover_ns[e] = live & bit ? since_base : part_.ref_ns;
        }
        base_ = g;
        part_ = Part{};
        if (sampled_) retune_periods(s.ref_ns);
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

    static void map_ring(PerfRing& ring, int fd, size_t pages) {
        if (int err = ring.map(fd, pages); err < 0)
            throw BackendError(std::string("cannot map the sample buffer: ") + std::strerror(-err) +
                               (err == -EPERM ? " (locked-memory limit: raise ulimit -l)" : ""));
    }

    // The events' ring: smaller where the locked-memory limit will not have
    // the full one (its records are a refinement; the ticks' ring is not).
    void map_event_ring(int fd) {
        for (size_t pages = kEventRingDataPages; pages > 1; pages /= 2)
            if (event_ring_.map(fd, pages) == 0) return;
        map_ring(event_ring_, fd, 1);
    }

    void close_all() noexcept {
        event_ring_.unmap();
        ring_.unmap();
        for (int& fd : fds_)
            if (fd >= 0) ::close(fd), fd = -1;
        if (leader_fd_ >= 0) ::close(leader_fd_);
        leader_fd_ = -1;
    }

    LiveSetScheduler sched_;
    unsigned n_;
    bool chains_ = false;  // the records carry the user call chain
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
    // Self-sampled events (EventSpec::self_sampled) and their records.
    // A sink keeps this many places free for ticks when it takes records:
    // a quarter of sprof_lib's (64 ms of 1 ms ticks while its writer thread
    // waits for a CPU the program holds).
    static constexpr size_t kRoomForTicks = 64;
    uint32_t sampled_ = 0;
    uint64_t ids_[kMaxEvents] = {};
    PerfRing event_ring_;
    uint64_t event_mark_[kMaxEvents] = {};  // each one's value at its last record or tick
    RawSample pending_;                      // records at one PC not yet put
    uint64_t period_[kMaxEvents] = {};
    uint64_t window_[kMaxEvents] = {};  // its events since the last tick
    double peak_[kMaxEvents] = {};
};

class PerfBackend final : public Backend {
public:
    PerfBackend(std::vector<EventSpec> events, unsigned slots, Rotation rotation, unsigned call_depth)
        : events_(std::move(events)), slots_(slots), rotation_(rotation), call_depth_(call_depth) {}
    std::string name() const override { return "perf"; }
    std::unique_ptr<TaskCounters> attach(pid_t tid, bool enable_on_exec, const TickPlan& ticks) override {
        return std::make_unique<PerfTaskCounters>(events_, slots_, rotation_, tid, enable_on_exec, ticks, call_depth_);
    }

private:
    std::vector<EventSpec> events_;
    unsigned slots_;
    Rotation rotation_;
    unsigned call_depth_;
};

}  // namespace

std::unique_ptr<Backend> make_perf_backend(const std::vector<EventSpec>& events, unsigned slots, Rotation rotation,
                                           unsigned call_depth) {
    return std::make_unique<PerfBackend>(events, slots, rotation, call_depth);
}

}  // namespace sprof

// The writer thread's side of locality collection: what each thread's
// sampler found becomes REUSE_SAMPLES_WIDE, TENURES and LOCALITY_WINDOW
// records, each sample named by its data object (data_objects.hpp); PCs
// are resolved to functions by the session (which writes their FUNCTION
// records as it does for event samples). Exact mode writes each thread's
// curve, functions and instructions when the thread ends.
#include <cstdio>
#include <vector>

#include "data_objects.hpp"
#include "locality_runtime.hpp"
#include "locality_thread.hpp"

namespace sprof::rt::locality {
namespace {

uint64_t g_lost = 0;  // records dropped by threads already reclaimed (as LocalityWindow::lost_records)
uint64_t g_lost_allocations = 0;

struct Waiting {
    uint32_t tid;
    RawReuse found;
};

// What the writer keeps between drains of one image's profile.
struct WriterState {
    explicit WriterState(ProfileSession& s) : session(&s), data(s) {}
    ProfileSession* session;
    DataObjects data;
    uint64_t replay_limit = 0;      // the allocation epoch the previous drain saw
    std::vector<Waiting> waiting;   // samples whose start is not replayed yet
    SamplerOutput out;              // one thread's part of a drain (kept: its vectors keep their room)
};
// Never destroyed: the writer drains for the last time from the program's
// exit handlers, after which a static's destructor may already have run.
WriterState* g_writer = nullptr;

ReuseSample to_sample(ProfileSession& session, uint32_t tid, const RawReuse& r, uint32_t data) {
    return ReuseSample{tid,
                       r.window,
                       r.distance,
                       session.code_ref(r.sample_pc),
                       r.distance == kNoReuse ? CodeRef{} : session.code_ref(r.trigger_pc),
                       r.address,
                       r.size,
                       r.sample_write,
                       r.trigger_write,
                       r.position,
                       data};
}

// Samples whose data object is known now (all of them at the end) are
// written; the others wait for the next drain.
void write_samples(WriterState& w, bool final) {
    std::vector<ReuseSample> ready;
    size_t kept = 0;
    for (const Waiting& s : w.waiting) {
        uint32_t data = kNoData;
        if (w.data.take(s.tid, s.found.position, data) || final)
            ready.push_back(to_sample(*w.session, s.tid, s.found, data));
        else
            w.waiting[kept++] = s;
    }
    w.waiting.resize(kept);
    if (!ready.empty()) w.session->writer().add_reuse_samples(ready);
}

void write_tenures(ProfileSession& session, uint32_t tid, const std::vector<RawTenure>& found) {
    if (found.empty()) return;
    std::vector<Tenure> tenures;
    tenures.reserve(found.size());
    for (const RawTenure& t : found)
        tenures.push_back(Tenure{tid, t.position, t.end, std::vector<TenureStep>(t.steps, t.steps + t.n_steps)});
    session.writer().add_tenures(tenures);
}

// Exact mode, once the thread's collection is over: its curve, its
// functions and instructions (PCs mapped to functions now), and one window
// with its totals.
void write_exact(ProfileSession& session, uint32_t tid, const ExactCache& exact, uint64_t unseen_words) {
    const ExactCurve curve = exact.curve(tid);
    session.writer().add_exact_curve(curve);
    const auto functions =
        exact.lru().functions(tid, [&](uint64_t pc) { return session.code_ref(pc).function; });
    session.writer().add_exact_functions(functions);
    session.writer().add_exact_instructions(exact.instructions(tid, [&](uint64_t pc) { return session.code_ref(pc); }));
    session.writer().add_locality_window(LocalityWindow{tid, 0, curve.accesses, 0, unseen_words});
}

}  // namespace

void drain(ProfileSession& session, bool final) {
    if (!g_writer || g_writer->session != &session) {
        delete g_writer;
        g_writer = new WriterState(session);
    }
    WriterState& w = *g_writer;
    // Events numbered up to what the previous drain saw have reached their
    // rings by now; later ones may still be on their way (data_objects.hpp).
    const uint64_t limit = final ? UINT64_MAX : w.replay_limit;
    w.replay_limit = allocation_epoch();

    SamplerOutput& out = w.out;
    std::vector<LocalityWindow> windows;
    uint64_t live_lost = 0, live_lost_allocations = 0;
    for (auto& slot : g_threads) {
        ThreadState* t = slot.load(std::memory_order_acquire);
        if (!t) continue;
        if (final && !t->closed.load(std::memory_order_acquire)) {
            // The thread still runs (the image ends under it): keep it out, take its totals now.
            t->closing.store(true, std::memory_order_relaxed);
            t->lock.lock();
            if (!t->closed.load(std::memory_order_relaxed)) {
                t->final_count = counted(*t->hot);
                t->final_unseen = t->hot->unseen_words.load(std::memory_order_relaxed);
                t->closed.store(true, std::memory_order_relaxed);
            }
            t->lock.unlock();
        }
        // `exited` first: it implies `closed`, and once it is set the state is ours to free.
        const bool exited = t->exited.load(std::memory_order_acquire);
        const bool ended = exited || t->closed.load(std::memory_order_acquire);
        const auto tid = static_cast<uint32_t>(t->tid);
        if (!t->named) {
            session.add_thread(tid, t->name);
            w.data.add_stack(tid, t->stack_low, t->stack_high);
            t->named = true;
        }
        w.data.add_events(t->allocations);
        const uint64_t lost_allocations = t->lost_allocations.load(std::memory_order_relaxed);
        (exited ? g_lost_allocations : live_lost_allocations) += lost_allocations;
        // Once ended, the owner no longer touches its sampler or simulator.
        if (t->sampler) {
            out.clear();
            if (ended) t->sampler->finish(t->final_count, t->final_unseen, out);
            else t->sampler->drain(out);
            w.data.add_starts(tid, out.starts);
            for (const RawReuse& r : out.samples) w.waiting.push_back(Waiting{tid, r});
            write_tenures(session, tid, out.tenures);
            windows.insert(windows.end(), out.windows.begin(), out.windows.end());
            const uint64_t lost = t->sampler->lost();
            (exited ? g_lost : live_lost) += lost;
            // What was dropped since the last drain, into the profile (window 0's parts add up).
            if (lost != t->lost_written || lost_allocations != t->lost_allocations_written)
                windows.push_back(LocalityWindow{tid, 0, 0, 0, 0, lost - t->lost_written,
                                                 lost_allocations - t->lost_allocations_written});
            t->lost_written = lost;
            t->lost_allocations_written = lost_allocations;
        } else if (ended && !t->written) {
            write_exact(session, tid, *t->exact, t->final_unseen);
            t->written = true;
        }
        if (exited) {
            slot.store(nullptr, std::memory_order_release);
            delete t;
        }
    }
    // A static variable is found in the symbols of the objects whose code
    // the samples ran, read when a PC of theirs is first resolved: resolve
    // the sampled accesses' PCs before their data are named. (A program
    // that ends before the first drain had none resolved, and its statics
    // were named by their mapping, [anon] for a large .bss.)
    for (const Waiting& s : w.waiting) session.address_space().resolve(s.found.sample_pc);
    w.data.replay(limit);
    write_samples(w, final);
    for (const LocalityWindow& lw : windows) session.writer().add_locality_window(lw);
    if (final && g_lost + live_lost > 0)
        std::fprintf(stderr, "sprof: %llu locality records lost (no memory for the runtime's queues)\n",
                     static_cast<unsigned long long>(g_lost + live_lost));
    if (final && g_lost_allocations + live_lost_allocations > 0)
        std::fprintf(stderr, "sprof: %llu allocations not recorded (no memory for the runtime's queues); their samples may be named by an older block\n",
                     static_cast<unsigned long long>(g_lost_allocations + live_lost_allocations));
}

}  // namespace sprof::rt::locality

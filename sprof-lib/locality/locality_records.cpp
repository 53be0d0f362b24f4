// The writer thread's side of locality collection: what each thread's
// sampler found becomes REUSE_SAMPLES and LOCALITY_WINDOW records, its PCs
// resolved to functions by the session (which writes their FUNCTION records
// as it does for event samples).
#include <cstdio>
#include <vector>

#include "locality_runtime.hpp"
#include "locality_thread.hpp"

namespace sprof::rt::locality {
namespace {

uint64_t g_lost = 0;  // samples and windows lost by threads already reclaimed

void write_samples(ProfileSession& session, uint32_t tid, const std::vector<RawReuse>& found,
                   const std::vector<LocalityWindow>& windows) {
    if (!found.empty()) {
        std::vector<ReuseSample> samples;
        samples.reserve(found.size());
        for (const RawReuse& r : found)
            samples.push_back(ReuseSample{tid, r.window, r.distance, session.code_ref(r.sample_pc),
                                          r.distance == kNoReuse ? CodeRef{} : session.code_ref(r.trigger_pc),
                                          r.address, r.size, r.sample_write, r.trigger_write});
        session.writer().add_reuse_samples(samples);
    }
    for (const LocalityWindow& w : windows) session.writer().add_locality_window(w);
}

// Exact mode, once the thread's collection is over: its curve, its
// functions (PCs mapped to functions now), and one window with its totals.
void write_exact(ProfileSession& session, uint32_t tid, const ExactCache& exact, uint64_t unseen_words) {
    const ExactCurve curve = exact.curve(tid);
    session.writer().add_exact_curve(curve);
    const auto functions =
        exact.lru().functions(tid, [&](uint64_t pc) { return session.code_ref(pc).function; });
    session.writer().add_exact_functions(functions);
    session.writer().add_locality_window(LocalityWindow{tid, 0, curve.accesses, 0, unseen_words});
}

}  // namespace

void drain(ProfileSession& session, bool final) {
    std::vector<RawReuse> samples;
    std::vector<LocalityWindow> windows;
    uint64_t live_lost = 0;
    for (auto& slot : g_threads) {
        ThreadState* t = slot.load(std::memory_order_acquire);
        if (!t) continue;
        if (final && !t->closed.load(std::memory_order_acquire)) {
            // The thread still runs (the image ends under it): keep it out, take its totals now.
            t->closing.store(true, std::memory_order_relaxed);
            t->lock.lock();
            if (!t->closed.load(std::memory_order_relaxed)) {
                t->final_count = t->hot->count.load(std::memory_order_relaxed);
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
            t->named = true;
        }
        // Once ended, the owner no longer touches its sampler or simulator.
        if (t->sampler) {
            samples.clear();
            windows.clear();
            if (ended) t->sampler->finish(t->final_count, t->final_unseen, samples, windows);
            else t->sampler->drain(samples, windows);
            write_samples(session, tid, samples, windows);
            (exited ? g_lost : live_lost) += t->sampler->lost();
        } else if (ended && !t->written) {
            write_exact(session, tid, *t->exact, t->final_unseen);
            t->written = true;
        }
        if (exited) {
            slot.store(nullptr, std::memory_order_release);
            delete t;
        }
    }
    if (final && g_lost + live_lost > 0)
        std::fprintf(stderr, "sprof: %llu locality samples lost (the writer fell behind)\n",
                     static_cast<unsigned long long>(g_lost + live_lost));
}

}  // namespace sprof::rt::locality

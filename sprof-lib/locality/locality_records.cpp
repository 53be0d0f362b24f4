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

void write(ProfileSession& session, uint32_t tid, const std::vector<RawReuse>& found,
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

}  // namespace

void drain(ProfileSession& session, bool final) {
    std::vector<RawReuse> samples;
    std::vector<LocalityWindow> windows;
    uint64_t live_lost = 0;
    for (auto& slot : g_threads) {
        ThreadState* t = slot.load(std::memory_order_acquire);
        if (!t) continue;
        t->lock.lock();
        if (final && !t->exited && !t->closed) {
            // The thread still runs (the image ends under it): its totals now.
            t->final_count = t->hot->count.load(std::memory_order_relaxed);
            t->final_unseen = t->hot->unseen_words.load(std::memory_order_relaxed);
            t->closed = true;
        }
        const bool ended = t->exited || t->closed;
        const bool exited = t->exited;
        t->lock.unlock();
        samples.clear();
        windows.clear();
        // Once ended, the owner no longer touches the sampler.
        if (ended) t->sampler->finish(t->final_count, t->final_unseen, samples, windows);
        else t->sampler->drain(samples, windows);
        write(session, static_cast<uint32_t>(t->tid), samples, windows);
        if (exited) {
            g_lost += t->sampler->lost();
            slot.store(nullptr, std::memory_order_release);
            delete t;
        } else {
            live_lost += t->sampler->lost();
        }
    }
    if (final && g_lost + live_lost > 0)
        std::fprintf(stderr, "sprof: %llu locality samples lost (the writer fell behind)\n",
                     static_cast<unsigned long long>(g_lost + live_lost));
}

}  // namespace sprof::rt::locality

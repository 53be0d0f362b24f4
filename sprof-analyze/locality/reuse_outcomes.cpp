#include "reuse_outcomes.hpp"

#include <bit>
#include <limits>
#include <vector>

namespace sprof::analyze {

const TenureStep& tenure_state(const Tenure& t, const StackDistanceModel& m, uint64_t from, uint64_t lines) {
    for (const TenureStep& s : t.steps)
        if (lru_misses(m, s.gap, from, lines)) return s;
    return t.steps.back();
}

void visit_reuses(const LocalityData& l, Policy policy, std::span<const uint64_t> lines, const ReuseVisitor& visit) {
    std::vector<ReuseOutcome> outcomes(lines.size());
    for (const ReuseStream& s : l.streams) {
        std::vector<std::vector<double>> p;
        for (uint64_t c : lines) p.push_back(sample_miss_probabilities(s, policy, c));
        const bool lru = policy == Policy::lru;
        const StackDistanceModel model = stack_model(s);
        for (size_t i = 0; i < s.samples.size(); ++i) {
            const StreamSample& x = s.samples[i];
            for (size_t k = 0; k < lines.size(); ++k) {
                outcomes[k] = {p[k][i], nullptr};
                if (lru && p[k][i] > 0 && x.tenure != kNoTenure)
                    outcomes[k].state = &tenure_state(s.tenures[x.tenure], model, x.position + x.distance, lines[k]);
            }
            visit(s, x, outcomes);
        }
    }
}

void UseSum::add(const TenureStep& s, double weight, uint32_t line_size) {
    const uint32_t chunk = line_size > 64 ? line_size / 64 : 1;
    tenures += weight;
    used_bytes += weight * std::popcount(s.used) * chunk;
    bytes += weight * static_cast<double>(s.bytes);
    ++samples;
}

void UseSum::add(const UseSum& o) {
    tenures += o.tenures;
    used_bytes += o.used_bytes;
    bytes += o.bytes;
    samples += o.samples;
}

double UseSum::spatial(uint32_t line_size) const {
    return tenures > 0 ? used_bytes / (tenures * line_size) : std::numeric_limits<double>::quiet_NaN();
}

double UseSum::temporal() const {
    return used_bytes > 0 ? bytes / used_bytes - 1 : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace sprof::analyze

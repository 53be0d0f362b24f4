#include "warp.hpp"

namespace sprof::analyze {

LoadVector load_vector(const Counts& c, Estimator e) {
    LoadVector v{c.seconds(), c.samples, {}, {}, {}};
    const auto time_rel_sd = time_relative_sd(c.basis());
    for (const auto& s : estimate_spreads(c, e)) {
        v.events.push_back(s ? std::optional<double>(s->value) : std::nullopt);
        v.bounds.push_back(s ? confidence_bounds(*s, time_rel_sd) : std::nullopt);
        v.rate_bounds.push_back(s ? confidence_bounds(*s, 0.0) : std::nullopt);
    }
    return v;
}

Json to_json(const LoadVector& v, const std::vector<std::string>& event_names, bool ci) {
    auto per_s = [&](std::optional<double> x) { return x && v.seconds > 0 ? Json(*x / v.seconds) : Json(nullptr); };
    Json events = Json::object();
    for (size_t i = 0; i < event_names.size(); ++i) {
        const auto& x = v.events[i];
        Json e = {{"total", x ? Json(*x) : Json(nullptr)}, {"per_s", per_s(x)}};
        if (ci) {
            const auto& b = v.bounds[i];
            const auto& r = v.rate_bounds[i];
            e["total_low"] = b ? Json(b->low) : Json(nullptr);
            e["total_high"] = b ? Json(b->high) : Json(nullptr);
            e["per_s_low"] = per_s(r ? std::optional<double>(r->low) : std::nullopt);
            e["per_s_high"] = per_s(r ? std::optional<double>(r->high) : std::nullopt);
        }
        events[event_names[i]] = std::move(e);
    }
    return {{"time_s", v.seconds}, {"samples", v.samples}, {"events", events}};
}

}  // namespace sprof::analyze

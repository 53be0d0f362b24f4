// --calibrate: load each profile, fit, write MACHINE.json, print the fit.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate.hpp"

namespace sprof::analyze {

namespace {

// The fit per phase and the model's summary; JSON: the model.
void print_calibration(const Calibration& c, Format format, const std::string& model_path, std::ostream& out) {
    const MachineModel& m = c.model;
    if (format == Format::json) {
        out << dump_json(to_json(m), 2) << '\n';
        return;
    }
    Table fit;
    fit.add_column({Column::text, "profile"});
    fit.add_column({Column::integer, "phase"});
    fit.add_column({Column::fixed, "measured_s", 3});
    fit.add_column({Column::fixed, "fitted_s", 3});
    fit.add_column({Column::fixed, "error_pct", 1});
    for (const auto& p : c.phases) {
        fit.new_row();
        fit.put(m.profiles[p.profile]);
        fit.put(uint64_t{p.phase});
        fit.put(p.measured_s);
        fit.put(p.fitted_s);
        fit.put(100 * (p.fitted_s - p.measured_s) / p.measured_s);
    }
    fit.write_text(out);
    out << fmt::format("\n{} phases of {} profiles; seconds per event:", m.observations, m.profiles.size());
    for (size_t k = 0; k < m.events.size(); ++k) out << fmt::format(" {}={:.4g}", m.events[k], m.seconds_per_event[k]);
    if (!c.unfitted.empty())
        out << fmt::format("\nnot fitted: {} (the scheduler's: they count the machine's load as much as the work)",
                           fmt::join(c.unfitted, ", "));
    out << fmt::format("\nfit error: rms {:.4g} s, {:.1f} % relative; model written to {}\n", m.rms_error_s,
                       100 * m.rms_relative_error, model_path);
}

}  // namespace

void calibrate_machine(const Options& o, std::ostream& out) {
    std::vector<Dataset> sets;
    for (const auto& p : o.profiles) sets.push_back(load_dataset({p}, {.inline_mode = o.inline_mode, .read = {.salvage = o.salvage}}));
    Calibration c = fit_machine(sets, o.profiles, phase_params(o));
    write_machine_model(c.model, o.output);
    print_calibration(c, o.format, o.output, out);
}

}  // namespace sprof::analyze

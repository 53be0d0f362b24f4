// sprof: reports on profiles written by sprof_lib and sprof_pt.
#include <iostream>

#include "calibrate.hpp"
#include "report_mrc.hpp"
#include "reports.hpp"

using namespace sprof::analyze;

namespace {

void report_locality(const Dataset& data, const Options& o) {
    const MrcParams p{{o.policy}, o.cache_bytes, o.top, o.format};
    if (!o.plot_file.empty()) plot_mrc(data, p, o.plot_file);
    report_mrc(data, p, std::cout);
}

void run(const Options& o) {
    if (o.report == Report::calibrate) return calibrate_machine(o, std::cout);
    if (o.report == Report::predict) return predict_runtime(o, std::cout);

    // Reports of whole profiles need no time line: fold it while reading,
    // so a job of many ranks fits in memory.
    const bool whole = (o.report == Report::flat || o.report == Report::imbalance) && o.plot_file.empty() &&
                       o.export_file.empty();
    Dataset data = load_dataset(o.profiles, {.fold = whole});
    for (const auto& s : data.sources)
        for (const auto& w : s.profile.warnings) std::cerr << "sprof: warning: " << w << '\n';
    if (o.report == Report::mrc) return report_locality(data, o);
    RateSet rates(data.event_names(), o.rates, o.default_rates);
    Context c{data, o, rates, std::cout};

    if (!o.plot_file.empty()) write_plot(c);
    if (!o.export_file.empty()) export_chrome_trace(c);
    // Only a plot or an export was asked for: no report on stdout.
    if (!o.report_given && (!o.plot_file.empty() || !o.export_file.empty())) return;
    switch (o.report) {
    case Report::flat: return report_flat(c);
    case Report::info: return report_info(c);
    case Report::timeline: return report_timeline(c);
    case Report::phases: return report_phases(c);
    case Report::warp: return report_warp(c);
    case Report::imbalance: return report_imbalance(c);
    default: return;
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    try {
        Options o = parse_options({argv + 1, argv + argc});
        if (o.help) {
            std::cout << kUsage;
            return 0;
        }
        run(o);
        std::cout.flush();
        if (!std::cout) throw std::runtime_error("cannot write the report to standard output");
    } catch (const UsageError& e) {
        std::cerr << "sprof: " << e.what() << '\n';
        return 2;
    } catch (const std::invalid_argument& e) {  // a bad --rate or --plot-rate
        std::cerr << "sprof: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {  // ProfileError and every other failure
        std::cerr << "sprof: " << e.what() << '\n';
        return 1;
    }
    return 0;
}

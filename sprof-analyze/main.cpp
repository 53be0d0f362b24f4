// sprof: reports on profiles written by sprof_lib and sprof_pt.
#include <iostream>

#include "cli.hpp"
#include "notes.hpp"
#include "report_kinds.hpp"

using namespace sprof::analyze;

namespace {

// The profiles merged, their warnings told, the rates asked for over their events.
struct Run {
    Dataset data;
    RateSet rates;
};

Run load(const std::vector<std::string>& profiles, const Options& o, bool whole) {
    Dataset data = load_dataset(profiles, {.fold = whole, .inline_mode = o.inline_mode, .read = {.salvage = o.salvage}});
    for (const auto& s : data.sources)
        for (const auto& w : s.profile.warnings) notes() << "sprof: warning: " << w << '\n';
    RateSet rates(data.event_names(), o.rates, o.default_rates);
    return {std::move(data), std::move(rates)};
}

void run(const Options& o) {
    const ReportKind& report = *find_report_kind(o.report);
    if (report.run_alone) return report.run_alone(o, std::cout);

    // Reports of whole profiles need no time line: fold it while reading,
    // so a job of many ranks fits in memory.
    const bool whole = !report.timeline && o.outputs.empty();
    if (!o.compare_before.empty()) {  // cli.cpp let it through for reports with a compared view only
        if (!o.outputs.empty()) throw sprof::UsageError("--compare writes its report alone: no --plot, --export or --html");
        const Run before = load(o.compare_before, o, whole), after = load(o.profiles, o, whole);
        return report.compare({before.data, o, before.rates, std::cout}, {after.data, o, after.rates, std::cout});
    }
    const Run r = load(o.profiles, o, whole);
    Context c{r.data, o, r.rates, std::cout};

    for (const auto& k : report_kinds())
        if (k.output && o.wants_output(k.name)) k.run(c);
    // Only outputs were asked for: no report on stdout.
    if (!o.report_given && !o.outputs.empty()) return;
    report.run(c);
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    try {
        CommandLine line = parse_command_line({argv + 1, argv + argc});
        if (line.quiet) silence_notes();
        if (!line.help.empty()) {
            std::cout << line.help;
            return 0;
        }
        run(line.options);
        std::cout.flush();
        if (!std::cout) throw std::runtime_error("cannot write the report to standard output");
    } catch (const std::invalid_argument& e) {  // UsageError, and what the profile cannot answer
        std::cerr << "sprof: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {  // ProfileError and every other failure
        std::cerr << "sprof: " << e.what() << '\n';
        return 1;
    }
    return 0;
}

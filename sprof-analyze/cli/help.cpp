#include "help.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace sprof::analyze {

namespace {

constexpr size_t kHelpColumn = 29;  // where the help of an option starts

// "-o, --output MACHINE.json", "--phases[=auto|func:NAME]"
std::string usage_of(const OptionSpec& o) {
    std::string s = o.names;
    for (size_t comma = s.find(','); comma != std::string::npos; comma = s.find(',', comma + 2)) s.replace(comma, 1, ", ");
    if (!o.value.empty()) s += (o.value.front() == '[' ? "" : " ") + o.value;
    return s;
}

// "  --top N                    help", the help in its column; a long left
// side puts it on the next line, and a '\n' in it continues in the column.
std::string line(const std::string& left, const std::string& help) {
    std::string out = "  " + left;
    if (out.size() >= kHelpColumn) out += '\n' + std::string(kHelpColumn, ' ');
    else out.resize(kHelpColumn, ' ');
    for (char c : help) out += c == '\n' ? '\n' + std::string(kHelpColumn, ' ') : std::string(1, c);
    return out + '\n';
}

std::string option_line(const OptionSpec& s) { return line(usage_of(s), s.help); }

std::string kind_names() {
    std::string names;
    for (const auto& k : report_kinds()) names += (names.empty() ? "" : ", ") + k.name;
    return names;
}

}  // namespace

std::string general_help() {
    std::string reports, outputs, shared, some;
    for (const auto& k : report_kinds())
        (k.output ? outputs : reports) += line(k.option.names.empty() ? "(none)" : usage_of(k.option), k.option.help);
    for (const auto& s : shared_options()) shared += option_line(s);
    for (const auto& g : group_options()) some += option_line(g.option);
    shared += line("-h, --help", "this text");
    shared += line("-q, --quiet", "no warnings or notes on stderr (a profile cut short, sprof\ntop's progress); errors stay");
    shared += line("--version", "the version and the git revision built");
    return fmt::format(
        "usage: sprof [REPORT] [OUTPUT...] [OPTION...] PROFILE...\n"
        "       sprof [REPORT] --compare BEFORE [OPTION...] AFTER...   (two runs)\n"
        "       sprof top [OPTION...] PROFILE   (live, as --follow)\n"
        "       sprof help NAME\n"
        "Reports on one or more sprof profiles (merged: threads, processes, MPI ranks).\n\n"
        "Reports (one at a time; the flat profile when none is given):\n{}"
        "Outputs (beside any report; given alone, no report):\n{}"
        "Options of some reports (sprof help REPORT names its own):\n{}"
        "Options of every report:\n{}"
        "sprof help NAME: what a report or output shows, and its own options\n"
        "(NAME: {}).\n"
        "Exit status: 0 success, 1 unreadable or invalid profile, 2 bad usage.\n",
        reports, outputs, some, shared, kind_names());
}

std::string report_help(const ReportKind& k) {
    std::string own;
    for (const auto& s : k.options) own += option_line(s);
    for (const auto& g : group_options())
        if (std::find(g.reports.begin(), g.reports.end(), k.name) != g.reports.end()) own += option_line(g.option);
    return fmt::format("usage: sprof {}[OPTION...] PROFILE...\n{}: {}\n\n{}\n{}{}\nOptions of every report: sprof --help\n",
                       k.option.names.empty() ? "" : usage_of(k.option) + " ", k.name, k.option.help, k.details,
                       own.empty() ? "" : "\nIts own options:\n", own);
}

std::optional<std::string> shared_option_help(const std::string& name) {
    for (const auto& s : shared_options())
        if (!s.details.empty() && (long_name(s) == name || long_name(s) == "--" + name)) {
            std::string summary = s.help;
            std::replace(summary.begin(), summary.end(), '\n', ' ');
            return fmt::format("usage: sprof [REPORT] {} [OPTION...] PROFILE...\n{}: {}\n\n{}\n", usage_of(s),
                               long_name(s), summary, s.details);
        }
    return std::nullopt;
}

}  // namespace sprof::analyze

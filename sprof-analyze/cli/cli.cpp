// The command line through CLI11. Errors stay ours: one line, exit status
// 2. The tables' setters convert the values as each option is read, so the
// first bad value on the line is the one named; what CLI11 would tell only in
// its own words (a missing value, a value given to a flag) is checked before.
#include "cli.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "help.hpp"
#include "report_kinds.hpp"
#include "sprof/version.hpp"

namespace sprof::analyze {

namespace {

bool chosen(const Options& o, const ReportKind& k) { return k.output ? o.wants_output(k.name) : o.report == k.name; }

void choose(Options& o, const ReportKind& k) {
    if (k.output) return o.add_output(k.name);
    if (o.report_given && o.report != k.name)
        throw UsageError(long_name(k.option) + " cannot be combined with another report");
    o.report = k.name;
    o.report_given = true;
}

// The option as CLI11 reads it; `on_given` runs before its setter.
void add(CLI::App& app, Options& o, const OptionSpec& s, std::function<void(Options&)> on_given = {}) {
    auto given = [&o, &s, on_given, name = long_name(s)](const OptionValues& values) {
        if (on_given) on_given(o);
        if (s.set) s.set(o, name, values);
    };
    CLI::Option* opt;
    if (!s.implicit.empty())  // "--phases{auto}": a flag whose value is `auto` unless --phases=VALUE
        opt = app.add_flag(s.names + "{" + s.implicit + "}")->each([given](const std::string& v) { given({v}); });
    else
        opt = app.add_option(s.names, [given](const CLI::results_t& values) {
                     given(values);
                     return true;
                 })
                  ->expected(s.values)
                  ->allow_extra_args(false);
    opt->trigger_on_parse();
}

const OptionSpec* find_spec(const std::string& name) {
    auto named = [&](const OptionSpec& s) {
        for (size_t start = 0; start <= s.names.size();) {
            size_t end = std::min(s.names.find(',', start), s.names.size());
            if (s.names.compare(start, end - start, name) == 0) return true;
            start = end + 1;
        }
        return false;
    };
    for (const auto& s : shared_options())
        if (named(s)) return &s;
    for (const auto& k : report_kinds()) {
        if (!k.option.names.empty() && named(k.option)) return &k.option;
        for (const auto& s : k.options)
            if (named(s)) return &s;
    }
    for (const auto& g : group_options())
        if (named(g.option)) return &g.option;
    return nullptr;
}

// A flag given a value, "--name=" with none, and an option whose values the
// line ends before.
void check_values(const std::vector<std::string>& args) {
    for (size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
        const std::string& a = args[i];
        if (a.size() < 2 || a[0] != '-') continue;
        const bool is_long = a.starts_with("--");
        const size_t eq = is_long ? a.find('=') : std::string::npos;
        const std::string name = is_long ? a.substr(0, eq) : a.substr(0, 2);
        const OptionSpec* s = find_spec(name);
        if (!s) continue;  // unknown options are told after parsing
        if (eq + 1 == a.size()) throw UsageError(name + "= has an empty value");
        OptionValues values;
        if (eq != std::string::npos) values.push_back(a.substr(eq + 1));
        else if (!is_long && a.size() > 2) values.push_back(a.substr(2));  // -oFILE
        if (s->values == 0) {
            if (!values.empty() && s->implicit.empty()) throw UsageError(name + " takes no value");
            continue;
        }
        while (values.size() < static_cast<size_t>(s->values) && i + 1 < args.size()) values.push_back(args[++i]);
        if (values.empty()) throw UsageError(name + " needs a value");
        // Two values are a kind and the file it writes (--export chrome-trace FILE).
        if (values.size() < static_cast<size_t>(s->values))
            throw UsageError(name + " " + values.front() + " needs an output file");
    }
}

void reject_unknown_options(const CLI::App& app) {
    for (const auto& a : app.remaining())
        if (a.size() > 1 && a[0] == '-' && a != "--") throw UsageError("unknown option '" + a + "' (see sprof --help)");
}

// Help on the report or output named, else on the report given (sprof
// --phases --help), else on all.
std::string help_on(const std::vector<std::string>& names, const Options& o) {
    if (names.empty()) return o.report_given ? report_help(*find_report_kind(o.report)) : general_help();
    if (names.size() > 1) throw UsageError("help takes one report or output name, not " + std::to_string(names.size()));
    if (const ReportKind* k = find_report_kind(names.front())) return report_help(*k);
    if (auto h = shared_option_help(names.front())) return *h;
    throw UsageError("no report, output or option named '" + names.front() + "' (see sprof --help)");
}

// After the whole line: reports' own checks, then own options without their report.
void check_reports(const CLI::App& app, const Options& o) {
    for (const auto& k : report_kinds())
        if (chosen(o, k) && k.check) k.check(o);
    for (const auto& k : report_kinds())
        for (const auto& s : k.options)
            if (!chosen(o, k) && app.get_option(long_name(s))->count() > 0)
                throw UsageError(long_name(s) + " needs " + long_name(k.option));
    for (const auto& g : group_options()) {
        if (app.get_option(long_name(g.option))->count() == 0) continue;
        std::vector<std::string> reports;
        bool taken = false;
        for (const auto& name : g.reports) {
            const ReportKind& k = *find_report_kind(name);
            taken |= chosen(o, k);
            reports.push_back(k.option.names.empty() ? "the " + k.name + " profile" : long_name(k.option));
        }
        if (taken) continue;
        std::string list;  // "--mrc, --misses or --use"
        for (size_t i = 0; i < reports.size(); ++i)
            list += (i == 0 ? "" : i + 1 == reports.size() ? " or " : ", ") + reports[i];
        throw UsageError(long_name(g.option) + " needs " + list);
    }
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
    CommandLine line;
    Options& o = line.options;
    CLI::App app;
    app.allow_extras();  // unknown options are told in our words
    app.set_help_flag("-h,--help");
    app.add_option("PROFILE", o.profiles);
    for (const auto& s : shared_options()) add(app, o, s);
    bool export_added = false;
    for (const auto& k : report_kinds()) {
        if (k.exported) {  // one --export KIND FILE for every format; its setter chooses
            if (!std::exchange(export_added, true)) add(app, o, k.option);
        } else if (!k.option.names.empty()) {
            add(app, o, k.option, [&k](Options& opts) { choose(opts, k); });
        }
        for (const auto& s : k.options) add(app, o, s);
    }
    for (const auto& g : group_options()) add(app, o, g.option);
    bool version = false;
    app.add_flag("--version", version);
    app.add_flag("-q,--quiet", line.quiet);
    std::vector<std::string> help_names;
    CLI::App* help = app.add_subcommand("help")->fallthrough();  // sprof help --phases
    help->add_option("NAME", help_names);

    // `sprof top PROFILE`, the name perf users know, is `sprof --follow PROFILE`.
    std::vector<std::string> words = args;
    if (!words.empty() && words.front() == "top") words.front() = "--follow";
    check_values(words);
    std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 reads the line from the back
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        reject_unknown_options(app);
        line.help = help_on(help_names, o);
        return line;
    } catch (const CLI::ParseError& e) {
        std::string what = e.what();
        std::replace(what.begin(), what.end(), '\n', ' ');
        throw UsageError(what);
    }
    reject_unknown_options(app);
    if (version) {
        line.help = fmt::format("sprof {}\n", version_text());
        return line;
    }
    if (help->parsed()) {
        line.help = help_on(help_names, o);
        return line;
    }
    if (o.profiles.empty())
        throw UsageError(o.compare_before.empty() ? "no profile given (see sprof --help)"
                                                  : "--compare BEFORE needs the profiles of the run after too: "
                                                    "sprof --compare BEFORE AFTER");
    check_reports(app, o);
    return line;
}

}  // namespace sprof::analyze

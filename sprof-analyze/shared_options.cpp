// The options every report takes.
#include "option_spec.hpp"

namespace sprof::analyze {

std::string long_name(const OptionSpec& s) { return s.names.substr(s.names.rfind(',') + 1); }

namespace {

void set_inline(Options& o, InlineMode mode) {
    if (o.inline_given && o.inline_mode != mode) throw UsageError("--inline and --no-inline exclude each other");
    o.inline_mode = mode;
    o.inline_given = true;
}

}  // namespace

const std::vector<OptionSpec>& shared_options() {
    static const std::vector<OptionSpec> options = {
        {.names = "--rate",
         .value = "NAME=EXPR",
         .values = 1,
         .help = "a derived rate (repeatable): + - * / ( ) numbers,\n"
                 "event names, `time` (seconds), `samples`",
         .set = [](Options& o, const std::string&, const OptionValues& v) { o.rates.push_back(v[0]); }},
        {.names = "--no-default-rates",
         .help = "only the rates given with --rate",
         .set = [](Options& o, const std::string&, const OptionValues&) { o.default_rates = false; }},
        {.names = "--estimator",
         .value = "coverage|carry",
         .values = 1,
         .help = "how multiplexed events are estimated",
         .set = [](Options& o, const std::string&, const OptionValues& v) {
             try {
                 o.estimator = parse_estimator(v[0]);
             } catch (const std::invalid_argument& e) {
                 throw UsageError(e.what());
             }
         }},
        {.names = "--inline",
         .help = "time in inlined code is the inlined function's",
         .set = [](Options& o, const std::string&, const OptionValues&) { set_inline(o, InlineMode::callee); }},
        {.names = "--no-inline",
         .help = "time in inlined code is the function's it was\ninlined into (default)",
         .set = [](Options& o, const std::string&, const OptionValues&) { set_inline(o, InlineMode::caller); }},
        {.names = "--top",
         .value = "N",
         .values = 1,
         .help = "only the N functions with most time",
         .set = [](Options& o, const std::string& opt, const OptionValues& v) { o.top = parse_count(opt, v[0]); }},
        {.names = "--format",
         .value = "text|csv|json",
         .values = 1,
         .help = "output format (default text)",
         .set = [](Options& o, const std::string&, const OptionValues& v) { o.format = parse_format(v[0]); }},
        {.names = "--min-phase",
         .value = "N",
         .values = 1,
         .help = "shortest automatic phase, in intervals (default 3)",
         .set = [](Options& o, const std::string& opt, const OptionValues& v) {
             o.min_phase = static_cast<unsigned>(parse_count(opt, v[0]));
             if (o.min_phase == 0) throw UsageError(opt + " must be at least 1");
         }},
    };
    return options;
}

}  // namespace sprof::analyze

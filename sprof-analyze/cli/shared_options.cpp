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
        {.names = "--ci",
         .help = "a 95 % confidence interval beside every estimate:\n"
                 "NAME_low and NAME_high after each column NAME",
         .details =
             "Every estimated count and rate of every report (flat, --timeline, --phases,\n"
             "--imbalance, --warp, sprof top's CSV) gets its 95 % confidence interval: in\n"
             "text and CSV each estimated column NAME is followed by NAME_low and NAME_high,\n"
             "JSON has the same keys. Unknown stays unknown ('-', an empty CSV field, null):\n"
             "an unknown estimate, fewer than two live samples, or a profile that does not\n"
             "hold the spread of its deltas (written before format 1.4).\n\n"
             "An estimate is a rate times a function's sampled time, and has two errors:\n"
             "* its own: which samples had the event live. The collectors rotate the live\n"
             "  sets in a shuffled order, so the live samples are a random sample of the\n"
             "  function's: the variance of a ratio estimator from the spread of the\n"
             "  sampled deltas and the share of the time the event was live, never below\n"
             "  what one unseen event allows. With every event live it is 0.\n"
             "* the time's: which samples landed in the function. Each entry into a\n"
             "  function moves its boundary by up to one sampling interval.\n"
             "A rate combines the errors of what it reads (delta method): a rate per unit\n"
             "of time keeps none of the time's. --estimator carry: the coverage estimate's\n"
             "error plus the distance between the two estimates. How often the intervals\n"
             "cover the truth is measured in bench/RESULTS.md (calibration).",
         .set = [](Options& o, const std::string&, const OptionValues&) { o.ci = true; }},
        {.names = "--salvage",
         .help = "read around damaged records (their checksum fails)\n"
                 "instead of refusing the profile; a warning names them",
         .details =
             "From format 1.12 on every record of a profile carries a CRC32C checksum. A\n"
             "record whose bytes are not those written (a flipped bit, an overwritten\n"
             "block) is an error naming its byte offset, exit status 1; a file cut short\n"
             "(the program was killed) is read to its last complete record with a\n"
             "warning, as before. With --salvage a damaged record is passed over: reading\n"
             "goes on after it when the record after it is intact, else at the next\n"
             "intact record; a damaged OBJECT or FUNCTION leaves a stand-in named\n"
             "'[corrupt record]' so the records after it keep their meaning. One warning\n"
             "says how many records were passed over, at which bytes. A damaged HEADER\n"
             "stays an error; profiles older than 1.12 have no checksums to go by.",
         .set = [](Options& o, const std::string&, const OptionValues&) { o.salvage = true; }},
        {.names = "--top",
         .value = "N",
         .values = 1,
         .help = "only the N functions with most time",
         .set = [](Options& o, const std::string& opt, const OptionValues& v) { o.top = parse_whole(opt, v[0], 0, SIZE_MAX); }},
        {.names = "--format",
         .value = "text|csv|json",
         .values = 1,
         .help = "output format (default text)",
         .set = [](Options& o, const std::string&, const OptionValues& v) { o.format = parse_format(v[0]); }},
        {.names = "--names",
         .value = "short|full",
         .values = 1,
         .help = "function names in text tables: short (default;\n"
                 "std::map<…>::find(…)) or full (placed last)",
         .details =
             "Text tables show a C++ function's name with its template arguments and\n"
             "parameter lists collapsed (std::map<…>::find(…), as hotspot's \"collapse\n"
             "templates\"), cut to 60 characters with \"…\" in its middle when still longer,\n"
             "so that no name pushes the columns after it out of line. Names that would\n"
             "read alike (two instances of one template, overloads) keep as many more\n"
             "levels of brackets as tell them apart, uncut. --names full prints\n"
             "the names whole, in the last columns of the table, as perf puts its symbol\n"
             "last. CSV, JSON, --html and the exports always carry the full names.",
         .set = [](Options& o, const std::string& opt, const OptionValues& v) {
             try {
                 o.names = parse_name_style(opt, v[0]);
             } catch (const std::invalid_argument& e) {
                 throw UsageError(e.what());
             }
         }},
        {.names = "--min-phase",
         .value = "N",
         .values = 1,
         .help = "shortest automatic phase, in intervals (default 3)",
         .set = [](Options& o, const std::string& opt, const OptionValues& v) {
             o.min_phase = static_cast<unsigned>(parse_whole(opt, v[0], 0, UINT_MAX));
             if (o.min_phase == 0) throw UsageError(opt + " must be at least 1");
         }},
    };
    return options;
}

}  // namespace sprof::analyze

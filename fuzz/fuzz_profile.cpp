// libFuzzer target over the whole path of `sprof` on arbitrary bytes: the
// reader (parse_profile), the merged dataset, and every report and output —
// flat (also with inlined code charged to the inlined functions), info,
// timeline (also by function), phases (automatic and func:NAME), WARP,
// source lines (--lines, both ways of inlined code, and func:NAME), the Chrome trace export, the plot's data (all of --plot
// but gnuplot), --calibrate and --predict — in every output format, with both
// estimators, into a sink that discards.
//
// The same bytes are also read as sprof top reads a file being written: fed
// to the stream in two pieces and into the live time line and its CSV view;
// the profile (or the error) must be the whole file's.
//
// The contract (issue 9 item 5): any file gets a result or a one-line error.
// main.cpp prints ProfileError, std::invalid_argument and std::runtime_error
// as that error; any other exception (std::out_of_range, std::length_error,
// std::bad_alloc, a JSON library error …) is a bug and aborts here, like a
// crash, a sanitizer report, a timeout or running out of memory.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "calibrate.hpp"
#include "exports.hpp"
#include "live_timeline.hpp"
#include "plot.hpp"
#include "reports.hpp"
#include "sprof/profile_io.hpp"
#include "sprof/profile_stream.hpp"
#include "top_view.hpp"

using namespace sprof;
using namespace sprof::analyze;

namespace {

struct NullBuf : std::streambuf {
    int overflow(int c) override { return c; }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// --calibrate and --predict read files: the input is written to one per
// fuzzing process, and predict gets a model of the events the seeds use.
std::string profile_path, model_path;

void remove_files() {
    std::remove(profile_path.c_str());
    std::remove(model_path.c_str());
}

// Runs one entry point; an error main.cpp would print as one line is fine.
template <typename F>
void expect_result_or_error(const char* what, F&& run) {
    try {
        run();
    } catch (const ProfileError&) {
    } catch (const std::invalid_argument&) {
    } catch (const std::runtime_error&) {
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_profile: %s threw %s\n", what, e.what());
        std::abort();
    }
}

// The default rates and two of ours over samples and time. Ours are
// skipped when the profile's event names make them ambiguous (a user's
// --rate would then be a usage error, status 2): not a finding.
RateSet make_rates(const Dataset& d) {
    try {
        return RateSet(d.event_names(), {"per_s=samples/time", "mixed=(time-samples)/(samples*time)"}, true);
    } catch (const std::invalid_argument&) {
        return RateSet(d.event_names(), {}, true);
    }
}

void every_report(const Dataset& d, std::ostream& out) {
    const RateSet rates = make_rates(d);
    for (Estimator est : {Estimator::coverage, Estimator::carry}) {
        for (Format format : {Format::text, Format::csv, Format::json}) {
            Options o;
            o.estimator = est;
            o.format = format;
            o.export_files = {{"chrome-trace", "/dev/null"}, {"pprof", "/dev/null"}, {"gecko", "/dev/null"}};
            o.min_phase = format == Format::text ? 3 : 1;
            const Context c{d, o, rates, out};
            expect_result_or_error("report_flat", [&] { report_flat(c); });
            expect_result_or_error("report_info", [&] { report_info(c); });
            expect_result_or_error("report_timeline", [&] { report_timeline(c); });
            expect_result_or_error("report_phases", [&] { report_phases(c); });
            expect_result_or_error("report_warp", [&] { report_warp(c); });
            for (InlineMode mode : {InlineMode::callee, InlineMode::caller}) {
                o.inline_mode = mode;
                expect_result_or_error("report_lines", [&] { report_lines(c); });
            }
            expect_result_or_error("report_locality", [&] { report_locality(c); });
            expect_result_or_error("report_misses", [&] { report_misses(c); });
            expect_result_or_error("report_use", [&] { report_use(c); });
            expect_result_or_error("report_data", [&] { report_data(c); });
            expect_result_or_error("report_reuse_pairs", [&] { report_reuse_pairs(c); });
            if (format != Format::text) continue;  // the outputs below have one format
            expect_result_or_error("export_chrome_trace", [&] { export_chrome_trace(c); });
            expect_result_or_error("export_pprof", [&] { export_pprof(c); });
            expect_result_or_error("export_gecko", [&] { export_gecko(c); });
            expect_result_or_error("plot_data", [&] { plot_data(c); });
            o.by_function = true;
            o.top = 2;
            expect_result_or_error("report_timeline --by-function", [&] { report_timeline(c); });
            o.by_function = false;
            if (!d.functions.empty()) {
                o.phases.function = d.functions.back().name;
                expect_result_or_error("report_phases func:", [&] { report_phases(c); });
                expect_result_or_error("plot_data func:", [&] { plot_data(c); });
                o.lines_function = d.functions.back().name;
                expect_result_or_error("report_lines func:", [&] { report_lines(c); });
                o.lines_function.clear();
            }
        }
    }
}

// sprof top's path: the stream fed in two pieces (cut where the first byte
// says), each feed into the live time line, its rows into the CSV view.
// `whole` is parse_profile's result, `whole_error` its error.
void follow_in_pieces(const std::string& bytes, const Profile* whole, const std::string& whole_error,
                      std::ostream& out) {
    const size_t cut = bytes.empty() ? 0 : static_cast<unsigned char>(bytes[0]) * bytes.size() / 256;
    ProfileStream stream("fuzz.sprof", true);
    LiveTimeline timeline;
    std::optional<RateSet> rates;
    Options o;
    auto view = make_csv_view(out, out);
    std::string pending, error;
    Profile got;
    try {
        for (const std::string& piece : {bytes.substr(0, cut), bytes.substr(cut)}) {
            pending += piece;
            pending.erase(0, stream.feed(pending));
            if (stream.has_header() && !timeline.has_image()) {
                timeline.begin_image("fuzz.sprof", stream.profile().header);
                rates.emplace(timeline.data().event_names(), std::vector<std::string>{}, true);
            }
            if (timeline.has_image()) timeline.update(stream.profile(), stream.take_changed(), 0);
            if (rates)
                if (auto rows = timeline.take_complete(0); !rows.empty()) view->rows({timeline, *rates, o}, rows);
        }
        timeline.end_image();
        if (rates)
            if (auto rows = timeline.take_complete(0); !rows.empty()) view->rows({timeline, *rates, o}, rows);
        got = std::move(stream).finish(pending);
    } catch (const ProfileError& e) {
        error = e.what();
    }
    if (error != whole_error || (whole && (got.intervals.size() != whole->intervals.size() ||
                                           got.warnings != whole->warnings || got.end.present != whole->end.present))) {
        std::fprintf(stderr, "fuzz_profile: fed in pieces at %zu: '%s', whole: '%s'\n", cut, error.c_str(),
                     whole_error.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const std::string dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    const std::string stem = dir + "/fuzz_profile." + std::to_string(::getpid());
    profile_path = stem + ".sprof";
    model_path = stem + ".json";
    std::ofstream(model_path) << R"({"seconds_per_event": {"page-faults": 1e-6}, "rms_relative_error": 0.1})";
    std::atexit(remove_files);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    Profile profile;
    NullBuf sink;
    std::ostream out(&sink);
    try {
        profile = parse_profile(bytes, "fuzz.sprof");
    } catch (const ProfileError& e) {
        follow_in_pieces(bytes, nullptr, e.what(), out);
        // sprof --salvage: what is read around damaged records goes through every report.
        try {
            const Profile salvaged = parse_profile(bytes, "fuzz.sprof", {.salvage = true});
            std::vector<Source> one;
            one.push_back({"fuzz.sprof", salvaged});
            every_report(merge_profiles(std::move(one)), out);
        } catch (const ProfileError&) {
        }
        return 0;  // the one-line error; nothing else to run
    }
    expect_result_or_error("follow_in_pieces", [&] { follow_in_pieces(bytes, &profile, "", out); });

    std::vector<Source> one;
    one.push_back({"fuzz.sprof", profile});
    every_report(merge_profiles(std::move(one)), out);

    // Two processes of one run: the merge path that matches functions and events.
    std::vector<Source> two;
    two.push_back({"a.sprof", profile});
    two.push_back({"b.sprof", std::move(profile)});
    const Dataset both = merge_profiles(std::move(two));
    Options o;
    const RateSet rates(both.event_names(), {}, true);
    expect_result_or_error("report_flat (merged)", [&] { report_flat({both, o, rates, out}); });
    expect_result_or_error("report_timeline (merged)", [&] { report_timeline({both, o, rates, out}); });
    // Inlined code charged to the inlined functions (sprof --inline, as load_dataset does it).
    Dataset inlined = both;
    charge_inlined_code(inlined);
    expect_result_or_error("report_flat --inline", [&] { report_flat({inlined, o, rates, out}); });
    expect_result_or_error("report_lines --inline", [&] { report_lines({inlined, o, rates, out}); });

    std::ofstream(profile_path, std::ios::binary | std::ios::trunc) << bytes;
    o.profiles = {profile_path};
    o.output = "/dev/null";
    expect_result_or_error("calibrate_machine", [&] { calibrate_machine(o, out); });
    o.machine_file = model_path;
    expect_result_or_error("predict_runtime", [&] { predict_runtime(o, out); });
    return 0;
}

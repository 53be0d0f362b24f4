// preprof: writes the control file of a program (default <program>.prf):
// the run's options, checked on this machine, and the function tables of the
// program and its shared libraries, so a collector starts without reading ELF.
#include <cstdio>
#include <filesystem>

#include "shared_libraries.hpp"
#include "sprof/control_file.hpp"
#include "sprof/launch.hpp"

namespace {

const char* const kUsage =
    "usage: preprof [options] program\n"
    "Writes the control file sprof_lib and sprof_pt read (-c FILE, or <program>.prf beside the program).\n"
    "  -e, --events LIST         events to count, comma separated (checked on this machine now)\n"
    "      --slots K             physical counters: at most K events live at once\n"
    "  -s, --sample-interval DUR sampling interval (default 10ms)\n"
    "  -H, --hist-samples N      samples per histogram interval (default 50)\n"
    "      --hist-interval DUR   histogram interval as a duration instead\n"
    "      --backend perf|cmdev  counter source (default perf)\n"
    "  -o, --output FILE         control file to write (default <program>.prf)\n"
    "      --list-events         print the events this machine can count\n"
    "  -h, --help                this text\n";

}  // namespace

int main(int argc, char** argv) {
    const std::string tool = "preprof";
    namespace fs = std::filesystem;
    try {
        sprof::PreparedRun run;
        sprof::RunOptions& opts = run.opts;
        const int program = sprof::parse_run_options(argc, argv, opts, false);
        if (!opts.control.empty()) throw sprof::UsageError("-c/--control is an option of the collectors");
        if (opts.list_events) {
            for (const auto& name : sprof::countable_events()) std::printf("%s\n", name.c_str());
            return 0;
        }
        if (program + 1 != argc) throw sprof::UsageError(program == argc ? "no program" : "one program, without arguments");
        sprof::resolve_run_events(run, tool);
        const std::string found = sprof::find_program(argv[program]);
        if (found.empty()) {
            std::fprintf(stderr, "%s: cannot find program '%s'\n", tool.c_str(), argv[program]);
            return 1;
        }
        sprof::ControlFile c;
        c.program = fs::canonical(found).string();
        c.events = run.events;
        c.slots = run.slots;
        c.sample_interval_ns = opts.sample_interval_ns;
        c.hist_samples = opts.hist_interval_ns ? 0 : opts.hist_samples;
        c.hist_interval_ns = opts.hist_interval_ns;
        c.backend = opts.backend;
        c.tables.push_back(sprof::ObjectSymbols::load(c.program));
        for (const std::string& lib : sprof::preprof::shared_libraries(c.program))
            c.tables.push_back(sprof::ObjectSymbols::load(lib));
        const std::string out = opts.output.empty() ? found + ".prf" : opts.output;
        sprof::write_control_file(out, c);
        size_t functions = 0;
        for (const auto& t : c.tables) functions += t.functions().size();
        std::printf("%s: wrote %s (%zu objects, %zu functions)\n", tool.c_str(), out.c_str(), c.tables.size(),
                    functions);
        return 0;
    } catch (const sprof::UsageError& e) {
        if (*e.what()) {
            std::fprintf(stderr, "%s: %s (see %s --help)\n", tool.c_str(), e.what(), tool.c_str());
            return 2;
        }
        std::fputs(kUsage, stdout);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool.c_str(), e.what());
        return 1;
    }
}

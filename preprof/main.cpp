// preprof: writes the control file of a program (default <program>.prf):
// the run's options, checked on this machine, and the function tables of the
// program and its shared libraries, so a collector starts without reading ELF.
#include <cstdio>
#include <filesystem>

#include "shared_libraries.hpp"
#include "sprof/control_file.hpp"
#include "sprof/launch.hpp"

int main(int argc, char** argv) {
    const sprof::Tool tool = sprof::Tool::preprof;
    const char* name = sprof::tool_name(tool);
    namespace fs = std::filesystem;
    try {
        sprof::RunOptions run = sprof::prepare_run(argc, argv, tool);
        if (sprof::answered_alone(run, tool)) return 0;
        if (!run.program || run.program[1])
            throw sprof::UsageError(!run.program ? "no program" : "one program, without arguments");
        const std::string found = sprof::find_program(run.program[0]);
        if (found.empty()) {
            std::fprintf(stderr, "%s: cannot find program '%s'\n", name, run.program[0]);
            return 1;
        }
        const std::string out = run.output.empty() ? found + ".prf" : run.output;
        sprof::ControlFile c{fs::canonical(found).string(), std::move(run)};
        c.run.tables.push_back(sprof::ObjectSymbols::load(c.program));
        for (const std::string& lib : sprof::preprof::shared_libraries(c.program))
            c.run.tables.push_back(sprof::ObjectSymbols::load(lib));
        sprof::write_control_file(out, c);
        size_t functions = 0;
        for (const auto& t : c.run.tables) functions += t.functions().size();
        if (!c.run.quiet)
            std::printf("%s: wrote %s (%zu objects, %zu functions)\n", name, out.c_str(), c.run.tables.size(), functions);
        return 0;
    } catch (const sprof::UsageError& e) {
        if (*e.what()) {
            std::fprintf(stderr, "%s: %s (see %s --help)\n", name, e.what(), name);
            return 2;
        }
        std::fputs(sprof::run_usage(tool).c_str(), stdout);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 1;
    }
}

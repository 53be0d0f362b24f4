// --export folded: the call paths as the FlameGraph tools' stackcollapse
// scripts write them, one line per path: its functions, outermost first,
// joined by ';', a space, its samples (flamegraph.pl, speedscope, inferno).
#include "call_paths.hpp"
#include "export_file.hpp"
#include "exports.hpp"

namespace sprof::analyze {

void export_folded(const Context& c) {
    const Dataset& d = c.data;
    require_call_paths(d);
    const std::vector<FoldedPath> paths = folded_paths(d, stack_totals(d));
    write_export_file(c.options.export_files.at("folded"), [&](std::ostream& out) {
        for (const FoldedPath& p : paths) {
            for (size_t i = 0; i < p.functions.size(); ++i) {
                std::string name = d.functions[p.functions[i]].name;
                // ';' separates the frames: one inside a name (operator;) would split it.
                for (char& ch : name)
                    if (ch == ';') ch = ':';
                out << (i ? ";" : "") << name;
            }
            out << ' ' << p.samples << '\n';
        }
    });
}

}  // namespace sprof::analyze

// The Dataset's source lines as every report and export reads them.
#include "dataset.hpp"
#include "sprof/demangle.hpp"

namespace sprof::analyze {

std::optional<CodeLine> Dataset::code_line(const CodeRef& code) const {
    auto it = code_lines.find({code.function, code.address});
    if (it == code_lines.end()) return std::nullopt;
    return it->second;
}

const SourceFrame& Dataset::shown_frame(const SourceLocation& l, InlineMode mode) const {
    return mode == InlineMode::callee ? l.frames.front() : l.frames.back();
}

uint32_t Dataset::shown_function(const SourceLocation& l, InlineMode mode) const {
    return mode == InlineMode::callee && l.callee != kNoFunction ? l.callee : l.function;
}

std::string Dataset::frame_function(const SourceLocation& l, const SourceFrame& f) const {
    if (&f == &l.frames.back()) return functions[l.function].name;
    return f.symbol == kNoString ? "??" : demangle(strings[f.symbol]);
}

std::string Dataset::file_path(const SourceFrame& f) const { return f.file == kNoString ? "" : strings[f.file]; }

std::string Dataset::source_text(const SourceFrame& f) const {
    const std::string file = f.file == kNoString ? "??" : object_basename(strings[f.file]);
    return file + ":" + std::to_string(f.line);
}

}  // namespace sprof::analyze

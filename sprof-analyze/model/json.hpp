// JSON as every report and file of the analyzer writes it: the reports'
// JSON, the exports, the machine model's file.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace sprof::analyze {

// Keeps keys in insertion order, so JSON reads like the text report.
using Json = nlohmann::ordered_json;

// JSON text of j. Names in a profile (symbols, paths, argv) are bytes, not
// always UTF-8: an invalid byte becomes U+FFFD instead of an exception that
// would lose the whole report. indent < 0: one line.
std::string dump_json(const Json& j, int indent = -1);
// The same replacement for a string on its own (formats whose strings must
// be UTF-8, such as pprof's).
std::string valid_utf8(const std::string& s);

}  // namespace sprof::analyze

// sprof --html DIR: the locality views as one static page that opens
// offline (DIR/index.html): source with per-line misses and the heavy reuse
// pairs drawn over it, data structures, spatial and temporal use, the
// miss-ratio curve. The page holds the JSON the views print, so it shows
// exactly the numbers of `sprof --misses` & co.
#pragma once
#include <string>

#include "reports.hpp"

namespace sprof::analyze {

void write_html_report(const Context& c);

// The page of a report document ({"title", "reports", "errors", "sources",
// "missing_sources"}): the template with its style, script and data inlined.
std::string html_page(const Json& document);

}  // namespace sprof::analyze

// The exports for existing viewers, each an entry of report_kinds.cpp under
// `--export KIND FILE`; each writes its file whole or not at all
// (export_file.hpp).
#pragma once

#include "reports.hpp"

namespace sprof::analyze {

// Chrome trace-event JSON: counter tracks per event and rate, phases as spans (export_chrome.cpp).
void export_chrome_trace(const Context& c);
// pprof's profile.proto, gzipped: a sample per function, a value per event (export_pprof.cpp).
void export_pprof(const Context& c);
// Gecko profile JSON for the Firefox Profiler: samples over time per thread,
// counters per event, phases as markers (export_gecko.cpp).
void export_gecko(const Context& c);
// The call paths as folded stacks for flame graphs (export_folded.cpp).
void export_folded(const Context& c);

}  // namespace sprof::analyze

// The call-path views of a function (profiles recorded with -g): who
// called it and what it called, each with its share of the function's
// inclusive time (model/call_paths.hpp).
#pragma once

#include "reports.hpp"

namespace sprof::analyze {

// --callers NAME: columns caller,samples,time_s,pct, then the events.
void report_callers(const Context& c);
// --callees NAME: columns callee,samples,time_s,pct, then the events;
// "[self]" is the time in NAME itself.
void report_callees(const Context& c);
// The flat report's --inclusive columns: incl_samples, incl_time_s,
// incl_time_pct (of the run's time), after a function's own.
void add_inclusive_columns(Table& t);
void put_inclusive(Table& t, const Counts& inclusive, const Counts& all);

}  // namespace sprof::analyze

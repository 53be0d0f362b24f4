// sprof --compare BEFORE AFTER: a report of two runs side by side, each
// side its profiles merged. Every value of the report becomes
// NAME_before, NAME_after, NAME_delta and NAME_ratio; a value with a 95 %
// interval also NAME_significant (before_after.hpp: the intervals do not
// overlap) and, with --ci, the intervals of both sides and of the delta.
// The event half is report_compare.cpp (flat profile, --lines), the
// locality half report_compare_locality.cpp (--mrc, --misses).
#pragma once
#include <string>
#include <vector>

#include "before_after.hpp"
#include "reports.hpp"

namespace sprof::analyze {

// The compared views, one per report that has one (report_kinds.cpp).
void compare_flat(const Context& before, const Context& after);
void compare_lines(const Context& before, const Context& after);
void compare_mrc(const Context& before, const Context& after);
void compare_misses(const Context& before, const Context& after);

// The columns of one compared value named `like.name`, formatted like it;
// `judged`: it has intervals (NAME_significant, and with `ci` the bounds).
void add_change_columns(Table& t, Column like, bool judged, bool ci);
void put_change(Table& t, const Change& c, bool judged, bool ci);

// Rows most changed first: by |delta| of `key` (unknown deltas last, then
// as they came).
void sort_by_change(std::vector<size_t>& order, const std::vector<Change>& key);

// A compared table in the chosen format: text after `heading` (lines for
// each side and notes), CSV alone, JSON as {before: …, after: …, …meta,
// key: rows}.
void write_compare_table(const Context& before, const Context& after, const std::vector<std::string>& heading,
                         const Table& t, const char* key, Json meta);

}  // namespace sprof::analyze

// Function names as text tables show them: a C++ name's template arguments
// and parameter lists collapsed ("std::map<…>::find(…)"), as hotspot's
// "collapse templates" does, so that a row is not 1,500 characters wide.
// CSV, JSON and the exports always carry the full name (Dataset::functions).
#pragma once
#include <string>
#include <vector>

namespace sprof::analyze {

// --names: how text tables print function names.
enum class NameStyle { collapsed, full };
// "short" or "full"; throws UsageError otherwise.
NameStyle parse_name_style(const std::string& option, const std::string& value);

// `name` (demangled) with each outermost <…> and each non-empty parameter
// list (…) replaced by an ellipsis between its brackets. Operators keep their
// symbols (operator<, operator()), "(anonymous namespace)" and a lambda's
// {lambda(…)#1} stay readable; a name with unbalanced brackets (not C++, or
// hostile) is collapsed up to where it stops making sense, never lost.
// kept_levels: that many outer levels of brackets kept, their contents
// collapsed below ("Catalogue<long, std::map<…> >::total(std::vector<…> const&)").
std::string collapse_name(const std::string& name, unsigned kept_levels = 0);

// The names of one table column as text shows them: each collapsed, with
// as many levels kept as tell it from the column's other names (the same
// template's instances, overloads); one collapsed whole is then cut to
// `width` characters with "…" in its middle (elide_middle) unless the cut
// would make it read like another (width 0: not cut): no two functions
// look alike in a table.
std::vector<std::string> short_names(const std::vector<std::string>& names, size_t width);

}  // namespace sprof::analyze

// Function names as text tables show them (short_names.hpp): names the
// demangler gives for libstdc++'s containers, written out by hand, and what
// a table does with them (table.hpp).
#include <doctest/doctest.h>

#include <sstream>

#include "short_names.hpp"
#include "table.hpp"
#include "text_columns.hpp"

using namespace sprof::analyze;

TEST_CASE("collapse_name collapses template arguments and parameter lists") {
    CHECK(collapse_name("std::_Rb_tree<long, std::pair<long const, long>, std::_Select1st<std::pair<long const, "
                        "long> >, std::less<long>, std::allocator<std::pair<long const, long> > >::find(long const&)") ==
          "std::_Rb_tree<…>::find(…)");
    CHECK(collapse_name("std::map<long, long, std::less<long>, std::allocator<std::pair<long const, long> > >::find("
                        "long const&) const") == "std::map<…>::find(…) const");
    CHECK(collapse_name("main") == "main");
    CHECK(collapse_name("walk(int)") == "walk(…)");
    CHECK(collapse_name("Index::size()") == "Index::size()");
    // A function template's own arguments and its return type.
    CHECK(collapse_name("long sum_all<std::map<long, long> >(std::map<long, long> const&)") == "long sum_all<…>(…)");
    // Operators keep their symbols, and their parameter lists collapse after them.
    CHECK(collapse_name("bool std::operator< <long>(std::pair<long, long> const&, std::pair<long, long> const&)") ==
          "bool std::operator< <…>(…)");
    CHECK(collapse_name("Key::operator<(Key const&) const") == "Key::operator<(…) const");
    CHECK(collapse_name("Hash::operator()(long) const") == "Hash::operator()(…) const");
    CHECK(collapse_name("operator new(unsigned long)") == "operator new(…)");
    CHECK(collapse_name("std::ostream::operator<<(int)") == "std::ostream::operator<<(…)");
    // Nested brackets of the other kind, lambdas, anonymous namespaces, clones.
    CHECK(collapse_name("std::function<void (int)>::operator()(int) const") == "std::function<…>::operator()(…) const");
    CHECK(collapse_name("main::{lambda(long)#1}::operator()(long) const") == "main::{lambda(…)#1}::operator()(…) const");
    CHECK(collapse_name("(anonymous namespace)::fill(std::vector<int, std::allocator<int> >&)") ==
          "(anonymous namespace)::fill(…)");
    CHECK(collapse_name("walk(int) [clone .cold]") == "walk(…) [clone .cold]");
    // Not C++: left alone, or collapsed up to where the brackets stop matching.
    CHECK(collapse_name("[unknown] libc.so.6") == "[unknown] libc.so.6");
    CHECK(collapse_name("f<int") == "f<int");
    CHECK(collapse_name("g(int) h<(x>") == "g(…) h<(x>");
}

TEST_CASE("a text table's name column: collapsed and cut, or whole and last") {
    const std::string full = "std::map<long, long, std::less<long>, std::allocator<std::pair<long const, long> > >::find("
                             "long const&)";
    const std::string deep = "ns::outer::middle::inner::very_long_namespace_name::another_one::Handler::"
                             "handle_the_request_with_a_long_name(Request const&)";
    Table t;
    t.add_column({Column::text, "function", 0, true});
    t.add_column({Column::integer, "samples"});
    for (const auto& [name, samples] : {std::pair{full, 7}, std::pair{deep, 12345}, std::pair{std::string("main"), 3}}) {
        t.new_row();
        t.put(name);
        t.put(static_cast<uint64_t>(samples));
    }
    std::ostringstream collapsed, whole, csv;
    t.write_text(collapsed);
    t.write_text(whole, NameStyle::full);
    t.write_csv(csv);
    std::vector<std::string> lines;
    std::istringstream in(collapsed.str());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    REQUIRE(lines.size() == 4);
    // Every row as wide as the header: the samples column ends in one place.
    for (const auto& line : lines) CHECK(columns(line) == columns(lines[0]));
    CHECK(lines[1].starts_with("std::map<…>::find(…) "));
    // Still longer than kNameColumns after collapsing: its middle cut.
    CHECK(lines[2].starts_with(elide_middle(collapse_name(deep), kNameColumns) + "  "));
    CHECK(columns(elide_middle(collapse_name(deep), kNameColumns)) == kNameColumns);
    // --names full: the names whole, in the last column, the numbers first.
    std::istringstream w(whole.str());
    std::getline(w, lines[0]);
    CHECK(lines[0] == "samples  function");
    std::getline(w, lines[0]);
    CHECK(lines[0] == "      7  " + full);
    std::getline(w, lines[0]);
    CHECK(lines[0] == "  12345  " + deep);
    // CSV always carries the full names.
    CHECK(csv.str() == "function,samples\n\"" + full + "\",7\n" + deep + ",12345\nmain,3\n");
}

TEST_CASE("short_names keeps apart what collapsing would make alike") {
    const std::string map_total = "Catalogue<long, std::map<long, Record, std::less<long>, std::allocator<std::pair<"
                                  "long const, Record> > > >::total(std::vector<long, std::allocator<long> > const&) const";
    const std::string hash_total = "Catalogue<long, std::unordered_map<long, Record, std::hash<long>, std::equal_to<"
                                   "long>, std::allocator<std::pair<long const, Record> > > >::total(std::vector<long, "
                                   "std::allocator<long> > const&) const";
    CHECK(collapse_name(map_total, 1) == "Catalogue<long, std::map<…> >::total(std::vector<…> const&) const");
    // Two instances of one template: one level kept each, not cut (a cut
    // in the middle would make them alike again). The same name twice (one
    // function of two objects) stays short; an overload set shows its
    // parameters.
    const auto shown = short_names({map_total, hash_total, "main", "main", "f(int)", "f(double)", "g(int)"}, 60);
    CHECK(shown == std::vector<std::string>{"Catalogue<long, std::map<…> >::total(std::vector<…> const&) const",
                                            "Catalogue<long, std::unordered_map<…> >::total(std::vector<…> const&) const",
                                            "main", "main", "f(int)", "f(double)", "g(…)"});
}

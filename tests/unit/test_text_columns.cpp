// Text cut to a width in characters, never bytes: counted by hand.
#include <doctest/doctest.h>

#include "text_columns.hpp"

using namespace sprof::analyze;

TEST_CASE("columns, fit and abbreviate count UTF-8 characters") {
    const std::string s = "π·work";  // 6 characters, 8 bytes
    CHECK(columns(s) == 6);
    CHECK(fit(s, 2) == "π·");
    CHECK(fit(s, 10) == s);
    CHECK(abbreviate(s, 6) == s);
    CHECK(abbreviate(s, 4) == "π·w…");
    CHECK(columns(abbreviate(std::string(1'000'000, 'w'), 60)) == 60);
}

TEST_CASE("elide_middle keeps a name's head and its longer tail") {
    CHECK(elide_middle("std::map<…>::find(…)", 30) == "std::map<…>::find(…)");
    // 10 characters: 3 of the head, "…", 6 of the tail.
    CHECK(elide_middle("abcdefghijklmnopqrstuvwxyz", 10) == "abc…uvwxyz");
    CHECK(elide_middle("ππππππππππππ·ω", 7) == "ππ…ππ·ω");
    CHECK(columns(elide_middle(std::string(1'000'000, 'w'), 60)) == 60);
}

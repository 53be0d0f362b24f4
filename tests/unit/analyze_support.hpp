// Helpers of the analyzer tests.
#pragma once
#include <doctest/doctest.h>

#include <string>

#include "dataset.hpp"

namespace sprof::test {

// The index of the dataset's function of that (display) name; fails the test when there is none.
inline uint32_t function_named(const analyze::Dataset& d, const std::string& name) {
    for (uint32_t f = 0; f < d.functions.size(); ++f)
        if (d.functions[f].name == name) return f;
    FAIL("no function " << name);
    return 0;
}

}  // namespace sprof::test

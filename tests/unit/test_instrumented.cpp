#include <doctest/doctest.h>

#include <filesystem>

#include "sprof/instrumented.hpp"

using namespace sprof;

TEST_CASE("programs not built with sprof-cc are told apart, with what to do") {
    // /bin/sh calls no hooks: no Debian program is built with sprof-cc.
    const std::string sh = std::filesystem::canonical("/bin/sh").string();
    CHECK(why_not_instrumented(sh) ==
          sh + " was not built with sprof-cc or sprof-c++, so nothing reports its memory accesses (rebuild it "
               "with them, or with the flags of sprof-cc --print-cflags and --print-ldflags)");
    CHECK(why_not_instrumented("/etc/passwd") ==
          "/etc/passwd is not an ELF program (a script? give sprof_lib the program it runs)");
    CHECK(why_not_instrumented("/nonexistent/app") == "cannot read /nonexistent/app (No such file or directory)");
}

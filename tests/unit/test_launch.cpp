// What a collector checks before it starts a program: a profile path it can
// create, and nothing left behind by the check.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sprof/launch.hpp"

namespace fs = std::filesystem;

TEST_CASE("launch: check_output creates nothing, keeps what is there, says why it cannot") {
    const fs::path dir = fs::temp_directory_path() / ("sprof-check-output-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path fresh = dir / "new.sprof";
    sprof::check_output(fresh.string());
    CHECK_FALSE(fs::exists(fresh));  // made and removed again

    const fs::path old = dir / "old.sprof";
    std::ofstream(old) << "kept";
    sprof::check_output(old.string());
    std::ifstream in(old);
    std::string text;
    in >> text;
    CHECK(text == "kept");  // opened, not truncated: the profile replaces it later

    CHECK_THROWS_WITH(sprof::check_output((dir / "no-dir" / "x.sprof").string()),
                      ("cannot create " + (dir / "no-dir" / "x.sprof").string() + ": No such file or directory").c_str());
    if (geteuid() != 0) {  // root writes whatever the mode says
        chmod(dir.c_str(), 0500);
        CHECK_THROWS_WITH(sprof::check_output(fresh.string()),
                          ("cannot create " + fresh.string() + ": Permission denied").c_str());
        chmod(dir.c_str(), 0700);
    }
    fs::remove_all(dir);
}

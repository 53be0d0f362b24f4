#include <dlfcn.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sprof/demangle.hpp"
#include "sprof/symbols.hpp"

using sprof::AddressSpace;
using sprof::FunctionRange;
using sprof::LoadSegment;
using sprof::ObjectSymbols;
using sprof::SymbolError;

// A function of this binary with a known name and a body well over 16 bytes.
extern "C" __attribute__((noinline)) unsigned sprof_test_symbol_target(unsigned n) {
    volatile unsigned acc = 0;
    for (unsigned i = 0; i < n; ++i) acc = acc * 31 + i;
    return acc;
}

namespace {

uint64_t address_of(unsigned (*fn)(unsigned)) { return reinterpret_cast<uint64_t>(fn); }

// Unique per process: test runs from several build trees may share /tmp.
std::string temp_path(const std::string& name) {
    return std::filesystem::temp_directory_path() / (std::to_string(getpid()) + "-" + name);
}

std::string self_exe() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

std::string run(const std::string& command) {
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    return pclose(pipe) == 0 ? out : std::string();
}

// Maps `path` whole, read+exec, as a loader would map a one-segment object.
struct ExecMapping {
    void* base = MAP_FAILED;
    size_t size = 0;
    explicit ExecMapping(const std::string& path) {
        int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        REQUIRE(fd >= 0);
        struct stat st;
        REQUIRE(fstat(fd, &st) == 0);
        size = static_cast<size_t>(st.st_size);
        base = mmap(nullptr, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
        close(fd);
        REQUIRE(base != MAP_FAILED);
    }
    ~ExecMapping() { munmap(base, size); }
    uint64_t start() const { return reinterpret_cast<uint64_t>(base); }
};

const char* kThreadDb = "/lib/x86_64-linux-gnu/libthread_db.so.1";

}  // namespace

TEST_CASE("symbols: a function of the test binary resolves to its name, start and middle") {
    AddressSpace space(0);
    const uint64_t pc = address_of(&sprof_test_symbol_target);
    for (uint64_t at : {pc, pc + 8}) {
        auto r = space.resolve(at);
        REQUIRE(r.object != nullptr);
        CHECK(*r.object == self_exe());
        REQUIRE(r.function != nullptr);
        CHECK(r.function->name == "sprof_test_symbol_target");
        CHECK(r.function->start + r.bias == pc);
        CHECK(r.function->end > r.function->start + 8);
    }
}

TEST_CASE("symbols: a libc function resolves into libc") {
    AddressSpace space(0);
    void* qsort_addr = dlsym(RTLD_DEFAULT, "qsort");
    REQUIRE(qsort_addr != nullptr);
    auto r = space.resolve(reinterpret_cast<uint64_t>(qsort_addr));
    REQUIRE(r.object != nullptr);
    CHECK(r.object->find("libc") != std::string::npos);
    REQUIRE(r.function != nullptr);
    CHECK(r.function->name == "qsort");
}

TEST_CASE("symbols: a library dlopen'd after the first refresh is found") {
    // libm is already mapped through libstdc++; libthread_db (glibc) is not.
    for (const auto& m : sprof::read_exec_mappings(0))
        REQUIRE(m.path.find("libthread_db") == std::string::npos);
    AddressSpace space(0);
    REQUIRE(space.resolve(address_of(&sprof_test_symbol_target)).function != nullptr);

    // Lazy: it needs ps_* callbacks from a debugger, which td_init never calls.
    void* handle = dlopen("libthread_db.so.1", RTLD_LAZY | RTLD_LOCAL);
    REQUIRE(handle != nullptr);
    void* td_init = dlsym(handle, "td_init");
    REQUIRE(td_init != nullptr);
    auto r = space.resolve(reinterpret_cast<uint64_t>(td_init));
    REQUIRE(r.object != nullptr);
    CHECK(r.object->find("libthread_db") != std::string::npos);
    REQUIRE(r.function != nullptr);
    CHECK(r.function->name == "td_init");
    dlclose(handle);
}

TEST_CASE("symbols: an address in no mapping has no object; [vdso] has an object, no function") {
    AddressSpace space(0);
    auto r = space.resolve(0x10);  // page zero is never mapped
    CHECK(r.object == nullptr);
    CHECK(r.function == nullptr);

    const uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
    if (vdso != 0) {
        auto v = space.resolve(vdso);
        REQUIRE(v.object != nullptr);
        CHECK(*v.object == "[vdso]");
        CHECK(v.function == nullptr);
    }
}

TEST_CASE("symbols: find() on a hand-built table, at every boundary") {
    ObjectSymbols table("t", {{0x1000, 0x1010, "a"}, {0x1010, 0x1020, "b"}, {0x1030, 0x1040, "c"}});
    CHECK(!table.find(0x0fff));
    CHECK(table.find(0x1000) == 0u);
    CHECK(table.find(0x100f) == 0u);
    CHECK(table.find(0x1010) == 1u);
    CHECK(table.find(0x101f) == 1u);
    CHECK(!table.find(0x1020));  // gap between b and c
    CHECK(table.find(0x1030) == 2u);
    CHECK(table.find(0x103f) == 2u);
    CHECK(!table.find(0x1040));
    CHECK(!ObjectSymbols().find(0x1000));
}

TEST_CASE("symbols: vaddr_of_offset follows the PT_LOAD layout, page-rounded offsets included") {
    // A typical PIE: r-- at 0, r-x at 0x1000, rw- at file 0x2d10 → vaddr 0x3d10.
    ObjectSymbols table("t", {}, {{0, 0, 0x5f0}, {0x1000, 0x1000, 0x1200}, {0x2d10, 0x3d10, 0x300}});
    CHECK(table.vaddr_of_offset(0) == 0u);
    CHECK(table.vaddr_of_offset(0x1000) == 0x1000u);
    CHECK(table.vaddr_of_offset(0x2000) == 0x3000u);  // the page holding 0x2d10
    CHECK(!table.vaddr_of_offset(0x10000));
    // A non-PIE executable: bias comes out 0 because vaddr == map start.
    ObjectSymbols exec("e", {}, {{0, 0x400000, 0x1000}});
    CHECK(exec.vaddr_of_offset(0) == 0x400000u);
}

TEST_CASE("symbols: load() of a non-ELF or missing file names the file") {
    const std::string text = temp_path("sprof-test-not-elf.txt");
    std::ofstream(text) << "just text, not an ELF file\n";
    try {
        ObjectSymbols::load(text);
        FAIL("no SymbolError");
    } catch (const SymbolError& e) {
        CHECK(std::string(e.what()) == text + ": not an ELF file");
    }
    std::filesystem::remove(text);
    CHECK_THROWS_WITH_AS(ObjectSymbols::load("/nonexistent/x.so"),
                         "/nonexistent/x.so: No such file or directory", SymbolError);
}

TEST_CASE("symbols: demangle") {
    CHECK(sprof::demangle("_ZN3foo3barEv") == "foo::bar()");
    CHECK(sprof::demangle("main") == "main");
    CHECK(sprof::demangle("f") == "f");  // a bare type code is not a symbol
    CHECK(sprof::demangle("_Znot-mangled") == "_Znot-mangled");
}

TEST_CASE("symbols: preload() replaces the table read from the ELF file") {
    const std::string exe = self_exe();
    const ObjectSymbols real = ObjectSymbols::load(exe);
    AddressSpace space(0);
    const uint64_t pc = address_of(&sprof_test_symbol_target);
    auto before = space.resolve(pc);
    REQUIRE(before.function != nullptr);
    const uint64_t link = pc - before.bias;

    space.preload(ObjectSymbols(exe, {{link, link + 1, "preloaded_name"}}, real.segments()));
    auto after = space.resolve(pc);
    REQUIRE(after.function != nullptr);
    CHECK(after.function->name == "preloaded_name");
    CHECK(space.resolve(pc + 1).function == nullptr);
}

TEST_CASE("symbols: a mapped file with spaces in its name, then deleted, still resolves") {
    const std::string copy = temp_path("sprof test lib.so");
    std::filesystem::copy_file(kThreadDb, copy, std::filesystem::copy_options::overwrite_existing);
    const ObjectSymbols truth = ObjectSymbols::load(kThreadDb);
    REQUIRE(!truth.functions().empty());
    REQUIRE(truth.vaddr_of_offset(0) == 0u);  // first PT_LOAD at offset 0, vaddr 0
    const FunctionRange& fn = truth.functions().back();

    ExecMapping mapped(copy);
    auto find_mapping = [&] {
        for (const auto& m : sprof::read_exec_mappings(0))
            if (m.start == mapped.start()) return m;
        return sprof::Mapping{};
    };
    auto m = find_mapping();
    CHECK(m.path == copy);
    CHECK(!m.deleted);
    CHECK(m.offset == 0u);

    std::filesystem::remove(copy);
    m = find_mapping();
    CHECK(m.path == copy);
    CHECK(m.deleted);

    AddressSpace space(0);
    auto r = space.resolve(mapped.start() + fn.start);
    REQUIRE(r.object != nullptr);
    CHECK(*r.object == copy);
    REQUIRE(r.function != nullptr);
    CHECK(r.function->name == fn.name);
    CHECK(space.unreadable().empty());
}

TEST_CASE("symbols: the test binary's functions match nm's sized text symbols"
          * doctest::skip(std::system("nm --version > /dev/null 2>&1") != 0)) {
    const std::string exe = self_exe();
    const std::string listing = run("nm --defined-only -S '" + exe + "' 2>/dev/null");
    // start → names of sized text symbols (T/t global/local, W weak, i ifunc).
    std::map<uint64_t, std::set<std::string>> sized;
    std::set<uint64_t> unsized;  // text symbols without a size (may be extended)
    std::istringstream lines(listing);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string addr, size, type, name;
        if (!(fields >> addr >> size >> type >> name)) {
            // No size column: "addr type name".
            std::istringstream short_fields(line);
            if ((short_fields >> addr >> type >> name) && (type == "T" || type == "t"))
                unsized.insert(std::stoull(addr, nullptr, 16));
            continue;
        }
        if (type != "T" && type != "t" && type != "W" && type != "i") continue;
        if (std::stoull(size, nullptr, 16) == 0) continue;
        sized[std::stoull(addr, nullptr, 16)].insert(name);
    }
    REQUIRE(sized.size() > 100);

    const ObjectSymbols table = ObjectSymbols::load(exe);
    size_t matched = 0;
    for (const FunctionRange& f : table.functions()) {
        auto it = sized.find(f.start);
        if (it == sized.end()) continue;
        ++matched;
        CHECK_MESSAGE(it->second.count(f.name) == 1, "name ", f.name, " at ", f.start);
    }
    CHECK(matched == sized.size());
    CHECK(table.functions().size() <= sized.size() + unsized.size());
}

namespace {

// libgcc_s where Debian puts it; nullptr where it is not.
const char* libgcc() {
    for (const char* c : {"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1", "/lib/x86_64-linux-gnu/libgcc_s.so.1"})
        if (access(c, R_OK) == 0) return c;
    return nullptr;
}

// With DEBUGINFOD_URLS set, the analyzer's tests in this process may ask debuginfod.
bool debuginfod_asked() {
    const char* urls = std::getenv("DEBUGINFOD_URLS");
    return urls && *urls;
}

}  // namespace

TEST_CASE("symbols: a library without a local debug file never brings in debuginfod (libcurl, OpenSSL)"
          * doctest::skip(!libgcc() || debuginfod_asked())) {
    // libdw dlopens libdebuginfod for its last resort whether or not
    // DEBUGINFOD_URLS is set; in a profiled process that loaded and started
    // OpenSSL beside the program's exit. The collectors search locally only.
    const ObjectSymbols table = ObjectSymbols::load(libgcc());
    CHECK(!table.functions().empty());
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) CHECK(line.find("libdebuginfod") == std::string::npos);
}

TEST_CASE("symbols: of aliases at one address, the name perf report gives"
          * doctest::skip(!std::filesystem::exists("/var/lib/dpkg/info/libc6-dbg:amd64.list"))) {
    // glibc's memcpy and memmove variants share their code; perf names it
    // __memmove_avx512_unaligned_erms (of two local, sized symbols with as
    // many leading underscores, the longer name). Needs libc's separate
    // debug file (libc6-dbg, which scripts/install-deps installs; skipped
    // where the package is not installed), where the variants have symbols.
    const ObjectSymbols libc = ObjectSymbols::load("/lib/x86_64-linux-gnu/libc.so.6");
    std::set<std::string> names;
    for (const auto& f : libc.functions()) names.insert(f.name);
    REQUIRE(names.count("_int_malloc") == 1);  // the debug file's local symbols, not the exported ones alone
    CHECK(names.count("__memmove_avx512_unaligned_erms") == 1);
    CHECK(names.count("__memcpy_avx512_unaligned_erms") == 0);
    // A global name wins over a local alias of it.
    CHECK(names.count("malloc") == 1);
    CHECK(names.count("__libc_malloc") == 0);
}

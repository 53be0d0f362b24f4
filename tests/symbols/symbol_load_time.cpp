// What the collector's symbol and line resolution costs for the objects of a
// real run: for each object a profile has samples in, the time to read its
// function table as the collector does on the first PC in it (libdwfl,
// separate debug file included); the time to open its debug info (once per
// object), and to find the source line and inline chain of every address
// sampled in it (each address once, as the collector caches them), and the
// memory the open debug info holds. CPU time, best of ROUNDS, each round
// from scratch (page cache warm). Prints a Markdown table.
// Usage: symbol_load_time PROFILE [ROUNDS]   (default 20)
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sprof/profile_io.hpp"
#include "sprof/source_lines.hpp"
#include "sprof/symbols.hpp"

namespace {

// This thread's CPU time: what the work costs the process, which a busy
// machine inflates less than wall time.
double now_ms() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Resident memory, from /proc/self/statm.
long resident_kb() {
    long pages_total = 0, pages_resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
        std::fclose(f);
    }
    return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

template <typename F>
double best_ms(int rounds, F&& run) {
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < rounds; ++r) {
        const double t0 = now_ms();
        run();
        best = std::min(best, now_ms() - t0);
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: symbol_load_time PROFILE [ROUNDS]\n");
        return 2;
    }
    const int rounds = argc == 3 ? std::atoi(argv[2]) : 20;
    if (rounds < 1) {
        std::fprintf(stderr, "symbol_load_time: ROUNDS must be a positive integer, not '%s'\n", argv[2]);
        return 2;
    }
    try {
        const sprof::Profile p = sprof::read_profile(argv[1]);
        // The link-time addresses sampled in each object (address rows of known functions).
        std::map<std::string, std::set<uint64_t>> sampled;
        for (const sprof::CodeAddress& a : p.lines.addresses) {
            const sprof::ProfileFunction& f = p.function(a.code.function);
            if (f.end > f.start && f.object != sprof::kNoObject) sampled[p.object_name(f.object)].insert(a.code.address);
        }
        std::printf("| object | functions | read functions | open debug info | addresses sampled | find their lines | "
                    "per address | memory held |\n");
        std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (const auto& [path, addresses] : sampled) {
            if (path.starts_with('[')) continue;  // [vdso]: read from this process, no debug info
            size_t functions = 0;
            const double symbols = best_ms(rounds, [&] { functions = sprof::ObjectSymbols::load(path).functions().size(); });
            double open = std::numeric_limits<double>::infinity(), lines = open;
            long held_kb = 0;
            for (int r = 0; r < rounds; ++r) {
                const long before = resident_kb();
                const double t0 = now_ms();
                sprof::ObjectLines object(path);
                const double t1 = now_ms();
                for (uint64_t a : addresses) object.locate(a);
                const double t2 = now_ms();
                open = std::min(open, t1 - t0);
                lines = std::min(lines, t2 - t1);
                if (r == 0) held_kb = resident_kb() - before;
            }
            std::printf("| %s | %zu | %.2f ms | %.1f ms | %zu | %.2f ms | %.0f µs | %.1f MB |\n", path.c_str(), functions,
                        symbols, open, addresses.size(), lines, 1e3 * lines / static_cast<double>(addresses.size()),
                        held_kb / 1024.0);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "symbol_load_time: %s\n", e.what());
        return 1;
    }
    return 0;
}

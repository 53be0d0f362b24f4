// Replays a memory trace from Valgrind's lackey (--tool=lackey
// --trace-mem=yes: "I  addr,size" per instruction, " L/S/M addr,size" per
// data access) through caches built the way cachegrind builds them: I1 and
// D1 set-associative LRU, their misses going on to a shared LL. Prints the
// counts cachegrind prints, so a test can put the two side by side, plus
// the D1 misses a fully associative LRU cache of D1's size has according
// to the stack distances (equal to cachegrind's when D1 is fully associative).
//
// Cachegrind's conventions, followed here: a modify (M) is one access; an
// access spanning two lines is one access that misses if either line
// misses, and both lines go to LL when it does; data sizes above the
// smallest line size are cut to it (cachegrind does so for the large
// accesses of xsave and the like, so that no access spans three lines).
//
// Usage: exact_trace_sim --I1=SIZE,ASSOC,LINE --D1=… --LL=… < TRACE
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "sprof/exact_cache.hpp"

namespace {

[[noreturn]] void die(int status, const std::string& message) {
    std::fprintf(stderr, "exact_trace_sim: %s\n", message.c_str());
    std::exit(status);
}

bool power_of_two(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

struct Level {
    sprof::SetAssociativeLru cache;
    uint64_t line_size;

    // One access of `size` bytes; cachegrind's rule for one spanning two lines.
    bool access(uint64_t address, uint64_t size) {
        const uint64_t first = address / line_size, last = (address + size - 1) / line_size;
        const bool miss = cache.access(first);
        return last != first ? cache.access(last) || miss : miss;
    }
};

// "SIZE,ASSOC,LINE" in bytes, as cachegrind's --D1 takes it.
Level parse_level(std::string_view name, std::string_view text) {
    uint64_t v[3];
    const char* p = text.data();
    const char* end = text.data() + text.size();
    for (int i = 0; i < 3; ++i) {
        auto [next, error] = std::from_chars(p, end, v[i]);
        if (error != std::errc() || v[i] == 0 || (i < 2 ? next == end || *next != ',' : next != end))
            die(2, std::string(name) + ": '" + std::string(text) + "' is not SIZE,ASSOC,LINE (three positive byte counts)");
        p = next + 1;
    }
    const uint64_t size = v[0], ways = v[1], line = v[2];
    if (!power_of_two(line) || size % (ways * line) != 0 || !power_of_two(size / (ways * line)))
        die(2, std::string(name) + ": '" + std::string(text) +
                   "' needs a power-of-two line size and a power-of-two number of sets (size / (assoc × line))");
    return Level{sprof::SetAssociativeLru(size / (ways * line), static_cast<uint32_t>(ways)), line};
}

}  // namespace

int main(int argc, char** argv) {
    std::optional<Level> levels[3];
    const char* names[3] = {"--I1=", "--D1=", "--LL="};
    for (int a = 1; a < argc; ++a) {
        int which = 0;
        while (which < 3 && std::strncmp(argv[a], names[which], 5) != 0) ++which;
        if (which == 3) die(2, std::string("unknown argument '") + argv[a] + "'; usage: exact_trace_sim --I1=SIZE,ASSOC,LINE --D1=… --LL=… < TRACE");
        levels[which].emplace(parse_level(std::string_view(names[which], 4), argv[a] + 5));
    }
    if (!levels[0] || !levels[1] || !levels[2]) die(2, "needs --I1, --D1 and --LL (SIZE,ASSOC,LINE each)");
    Level &i1 = *levels[0], &d1 = *levels[1], &ll = *levels[2];
    const uint64_t max_size = std::min({i1.line_size, d1.line_size, ll.line_size});
    const uint64_t d1_lines = d1.cache.sets() * d1.cache.ways();

    sprof::StackDistances d1_stack;
    uint64_t instructions = 0, data = 0, i1_misses = 0, d1_misses = 0, lli_misses = 0, lld_misses = 0, d1_stack_misses = 0;
    char* text = nullptr;
    size_t capacity = 0;
    uint64_t line_number = 0;
    for (ssize_t length; (length = getline(&text, &capacity, stdin)) > 0;) {
        ++line_number;
        std::string_view record(text, static_cast<size_t>(length));
        if (record.back() == '\n') record.remove_suffix(1);
        if (record.starts_with("==") || record.empty()) continue;  // lackey's own messages
        const size_t kind_at = record.find_first_not_of(' ');
        const size_t address_at = kind_at == std::string_view::npos ? kind_at : record.find_first_not_of(' ', kind_at + 1);
        uint64_t address = 0, size = 0;
        bool ok = address_at != std::string_view::npos;
        if (ok) {
            const char* end = record.data() + record.size();
            auto parsed = std::from_chars(record.data() + address_at, end, address, 16);
            ok = parsed.ec == std::errc() && parsed.ptr != end && *parsed.ptr == ',';
            if (ok) {
                parsed = std::from_chars(parsed.ptr + 1, end, size);
                ok = parsed.ec == std::errc() && parsed.ptr == end && size > 0;
            }
        }
        const char kind = ok ? record[kind_at] : '?';
        if (kind == 'I') {
            ++instructions;
            if (i1.access(address, size)) {
                ++i1_misses;
                lli_misses += ll.access(address, size);
            }
        } else if (kind == 'L' || kind == 'S' || kind == 'M') {
            ++data;
            size = std::min(size, max_size);
            if (d1.access(address, size)) {
                ++d1_misses;
                lld_misses += ll.access(address, size);
            }
            const uint64_t first = address / d1.line_size, last = (address + size - 1) / d1.line_size;
            bool miss = d1_stack.access(first).stack >= d1_lines;
            if (last != first) miss = d1_stack.access(last).stack >= d1_lines || miss;
            d1_stack_misses += miss;
        } else {
            die(1, "line " + std::to_string(line_number) + " is not a lackey --trace-mem record: '" + std::string(record) + "'");
        }
    }
    std::free(text);
    if (line_number == 0) die(1, "empty trace on standard input (expected valgrind --tool=lackey --trace-mem=yes output)");
    std::printf("instructions %llu\ndata %llu\nI1_misses %llu\nD1_misses %llu\nLLi_misses %llu\nLLd_misses %llu\n"
                "D1_stack_misses %llu\n",
                static_cast<unsigned long long>(instructions), static_cast<unsigned long long>(data),
                static_cast<unsigned long long>(i1_misses), static_cast<unsigned long long>(d1_misses),
                static_cast<unsigned long long>(lli_misses), static_cast<unsigned long long>(lld_misses),
                static_cast<unsigned long long>(d1_stack_misses));
    return 0;
}

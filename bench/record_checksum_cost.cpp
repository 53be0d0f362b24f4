// What the checksum of every record (format 1.11) adds to the writer: the
// intervals of a real profile written again by ProfileWriter (encoding, the
// checksum, one write() each), and the CRC32C of the same records' bytes
// alone, side by side in each round; SSE4.2's instruction and the portable
// table alike. Prints a Markdown table.
// usage: record_checksum_cost PROFILE ROUNDS SCRATCH_FILE
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sprof/crc32c.hpp"
#include "sprof/profile_io.hpp"

using namespace sprof;
using Clock = std::chrono::steady_clock;

// An INTERVAL and a LINE_CELLS record per thread every 100 ms at most.
constexpr double kRecordsPerSecond = 20;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The bytes of each INTERVAL record of `p` as the writer encodes them.
std::vector<std::string> interval_records(const Profile& p) {
    const std::string b = encode_profile(p);
    std::vector<std::string> out;
    for (size_t pos = 16; pos + 8 <= b.size();) {
        uint32_t type, length;
        std::memcpy(&type, b.data() + pos, 4);
        std::memcpy(&length, b.data() + pos + 4, 4);
        if (type == 5) out.push_back(b.substr(pos, 8 + length));
        pos += 8 + length;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: record_checksum_cost PROFILE ROUNDS SCRATCH_FILE\n");
        return 2;
    }
    Profile p = read_profile(argv[1]);
    const int rounds = std::atoi(argv[2]);
    if (rounds < 1 || p.intervals.empty()) {
        std::fprintf(stderr, "record_checksum_cost: ROUNDS must be at least 1 and %s must hold intervals\n", argv[1]);
        return 2;
    }
    // Intervals only: their source-line cells need the locations written first.
    p.lines = SourceLines{};
    for (Interval& iv : p.intervals) iv.lines.clear();
    const std::vector<std::string> records = interval_records(p);
    size_t bytes = 0;
    for (const auto& r : records) bytes += r.size();
    const double n = static_cast<double>(records.size());

    std::vector<double> write_ns, sse_ns, table_ns;
    volatile uint32_t sink = 0;  // the checksums are used: not optimised away
    auto per_record = [n](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::nano>(b - a).count() / n;
    };
    for (int round = 0; round < rounds; ++round) {
        ProfileWriter w;
        w.open(argv[3], p.header);
        for (const auto& o : p.objects) w.add_object(o);
        for (const auto& f : p.functions) w.add_function(f);
        const auto t0 = Clock::now();
        for (const auto& iv : p.intervals) w.add_interval(iv);
        const auto t1 = Clock::now();
        w.finish(p.end);
        const auto t2 = Clock::now();
        for (const auto& r : records) sink = sink ^ crc32c(r.data(), r.size() - 4);
        const auto t3 = Clock::now();
        for (const auto& r : records) sink = sink ^ crc32c_portable(r.data(), r.size() - 4);
        const auto t4 = Clock::now();
        write_ns.push_back(per_record(t0, t1));
        sse_ns.push_back(per_record(t2, t3));
        table_ns.push_back(per_record(t3, t4));
    }
    std::remove(argv[3]);
    const double w = median(write_ns), s = median(sse_ns), t = median(table_ns);
    std::printf("%zu INTERVAL records of %.0f bytes on average, written %d times (medians of the rounds):\n\n",
                records.size(), bytes / n, rounds);
    std::printf("| per record | ns | share of the writer's time |\n|---|---:|---:|\n");
    std::printf("| writer: encode, checksum, write() | %.0f | 100 %% |\n", w);
    std::printf("| its checksum (SSE4.2 crc32, used where the processor has it) | %.0f | %.2f %% |\n", s, 100 * s / w);
    std::printf("| the checksum by Boost.CRC's table (the fallback) | %.0f | %.2f %% |\n", t, 100 * t / w);
    // What the program pays: the collectors write at most an INTERVAL and a
    // LINE_CELLS record per thread every 100 ms (the partial intervals they
    // flush), in the writer thread, beside the ticks' own cost.
    const double per_second = kRecordsPerSecond * s;
    std::printf("\nAt the collectors' pace, at most %.0f records a second per thread, the checksums take %.1f µs per "
                "second of the thread's CPU time: %.5f %% (the fallback %.4f %%).\n",
                kRecordsPerSecond, per_second / 1e3, 100 * per_second / 1e9, 100 * kRecordsPerSecond * t / 1e9);
    return 0;
}

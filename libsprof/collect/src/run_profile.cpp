#include "sprof/run_profile.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>

#include "sprof/profile_names.hpp"

namespace sprof {
namespace {

std::string host_name() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
}

}  // namespace

ProfileHeader make_profile_header(const std::string& collector, const RunOptions& run, const std::string& program,
                                  std::vector<std::string> argv, pid_t pid) {
    ProfileHeader h;
    h.collector = collector;
    h.backend = run.backend;
    h.program = program;
    h.argv = std::move(argv);
    h.hostname = host_name();
    h.pid = static_cast<uint32_t>(pid);
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    h.start_unix_ns = uint64_t(now.tv_sec) * 1'000'000'000u + uint64_t(now.tv_nsec);
    h.clock = run.clock;
    h.sample_interval_ns = run.sample_interval_ns;
    h.hist_interval_ns = run.hist_interval_ns;
    h.hist_samples = h.hist_interval_ns ? 0 : run.hist_samples;
    h.slots = run.slots;
    h.rotation = to_string(run.rotation.kind);
    h.rotation_seed = run.rotation.seed;
    h.tick_dither = tick_plan(run).dither;
    for (const auto& s : run.events) h.events.push_back(ProfileEvent{s.name, s.time_like, s.user_only(), s.self_sampled});
    const JobPlace job = job_place();
    h.rank = job.rank;
    h.ranks = static_cast<uint32_t>(job.size);
    h.job_id = job.job_id;
    h.launcher = job.launcher;
    return h;
}

std::string expand_output_path(const std::string& pattern, const std::string& program, int pid,
                               bool descendant, unsigned image, const JobPlace& job) {
    std::string p = pattern;
    if (p.empty()) {
        auto slash = program.rfind('/');
        p = (slash == std::string::npos ? program : program.substr(slash + 1)) +
            (job.in_job() ? ".%j.rank%r.sprof" : ".%p.sprof");
    } else {
        // Ranks of one job, perhaps on hosts that share the directory, never share a file.
        if (job.in_job() && p.find("%r") == std::string::npos) p = insert_before_ending(p, ".rank%r");
        if (descendant && p.find("%p") == std::string::npos) p = insert_before_ending(p, ".%p");
    }
    p = image_path(p, image);
    std::string out;
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '%' || i + 1 == p.size()) {
            out += p[i];
            continue;
        }
        char c = p[++i];
        if (c == 'p') out += std::to_string(pid);
        else if (c == 'r') out += std::to_string(job.in_job() ? job.rank : 0);
        else if (c == 'j') out += job.job_id.empty() ? std::to_string(pid) : job.job_id;
        else if (c == 'h') out += host_name();
        else if (c == '%') out += '%';
        else out += std::string("%") + c;
    }
    return out;
}

unsigned image_number(const char* value, int pid) {
    if (!value) return 0;
    char* end = nullptr;
    errno = 0;
    long owner = std::strtol(value, &end, 10);
    if (errno || end == value || *end != ':' || owner != pid) return 0;
    const char* digits = end + 1;
    unsigned long n = std::strtoul(digits, &end, 10);
    if (errno || end == digits || *end || *digits == '-' || n > 1'000'000'000) return 0;
    return static_cast<unsigned>(n);
}

}  // namespace sprof

// sprof top (--follow): a profile while a collector writes it, like perf
// top. Only the file is read, never the program: it works for a run started
// by anyone, with either collector. Every look at the file reads the bytes
// appended since the last one (ProfileFollower); each interval is shown once
// complete, and the view tells how the program ended.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iostream>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "notes.hpp"
#include "profile_info.hpp"
#include "reports.hpp"
#include "sprof/profile_follower.hpp"
#include "sprof/profile_io.hpp"
#include "sprof/profile_names.hpp"
#include "top.hpp"
#include "top_view.hpp"

namespace sprof::analyze {

std::vector<FunctionCounts> top_functions(const TopContext& c, const LiveRow& row) {
    auto functions = occurring_functions(c.timeline.data(), std::span<const uint32_t>(row.intervals));
    if (c.options.top > 0 && functions.size() > c.options.top) functions.resize(c.options.top);
    return functions;
}

namespace {

// How often the file is looked at: the collectors write every 100 ms.
constexpr int kPollMs = 50;

uint64_t now_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

// The profiles of one process: its image's, then (sprof_lib) those of the
// images it execs into, each a file of its own (profile_names.hpp). sprof_pt
// writes an exec'd image into the same file.
class ImageChain {
public:
    ImageChain(const std::string& path, uint64_t wait_ns) : wait_ns_(wait_ns) {
        const ImageOfPath of = image_of_path(path);
        first_ = of.first;
        image_ = of.image;
        current_ = std::make_unique<ProfileFollower>(path);
    }

    ProfileFollower& current() { return *current_; }

    // Opens the current file when it appears: false while it has not,
    // within the wait; throws past it.
    bool open(uint64_t now) {
        if (current_->is_open() || current_->open()) return true;
        if (now - since_ >= wait_ns_)
            throw ProfileError(fmt::format("{}: no such file after waiting {} s (is a collector writing it? --wait S "
                                           "waits longer)",
                                           current_->path(), wait_ns_ / 1'000'000'000));
        return false;
    }

    // The image exec'd (its END says so): the next image's file, once it is
    // there. nullptr while it is not; throws ProfileError past the wait.
    std::unique_ptr<ProfileFollower> next(uint64_t now) {
        if (!next_) {
            next_ = std::make_unique<ProfileFollower>(image_path(first_, image_ + 1));
            exec_at_ = now;
        }
        if (!next_->open()) {
            if (now - exec_at_ >= wait_ns_)
                throw ProfileError(fmt::format("{}: the profile of the image {} exec'd into did not appear within {} s "
                                               "(a static or set-user-ID program is not profiled)",
                                               next_->path(), current_->stream().profile().header.program,
                                               wait_ns_ / 1'000'000'000));
            return nullptr;
        }
        return std::move(next_);
    }

    // Follows the next image from now on.
    void advance(std::unique_ptr<ProfileFollower> next) {
        current_ = std::move(next);
        ++image_;
    }
    // The END of an exec was taken back: the exec failed, the image goes on.
    void exec_failed() { next_.reset(); }

private:
    uint64_t wait_ns_;
    uint64_t since_ = now_ns();
    uint64_t exec_at_ = 0;
    std::string first_;
    unsigned image_ = 0;
    std::unique_ptr<ProfileFollower> current_, next_;
};

// The program of a profile without END is gone (killed: nothing will end
// the file) when it ran on this host and its pid is no more. A program that
// merely sleeps writes nothing for as long, so only this tells the two apart.
// Asked only after kGoneAfterNs without a new byte: sprof_pt writes the END
// of a program that died after it saw it die.
constexpr uint64_t kGoneAfterNs = 1'000'000'000;

bool program_gone(const ProfileHeader& h) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || h.hostname != host || h.pid == 0) return false;
    return ::kill(static_cast<pid_t>(h.pid), 0) != 0 && errno == ESRCH;
}

bool execs_into_new_file(const Profile& p) {
    return p.end.present && p.end.how == EndHow::exec && p.header.collector == "sprof_lib";
}

}  // namespace

void follow_profile(const Options& o, std::ostream& out) {
    const bool terminal = ::isatty(STDOUT_FILENO) && o.format != Format::csv;
    std::unique_ptr<TopView> view = terminal ? make_screen_view(out) : make_csv_view(out, std::cerr);
    const uint64_t wait_ns = uint64_t{o.wait_s} * 1'000'000'000;
    ImageChain chain(o.profiles.front(), wait_ns);
    LiveTimeline timeline;
    std::optional<RateSet> rates;
    bool begun = false, waiting = false;
    uint64_t bytes = 0, grown_at = now_ns();
    for (;;) {
        const uint64_t now = now_ns();
        if (!chain.open(now)) {
            if (!waiting) view->status(fmt::format("waiting for {} to appear (up to {} s)", chain.current().path(), o.wait_s));
            waiting = true;
        } else {
            ProfileFollower& f = chain.current();
            f.poll();
            if (f.bytes_read() != bytes) {
                bytes = f.bytes_read();
                grown_at = now;
            }
            ProfileStream& s = f.stream();
            const Profile& p = s.profile();
            if (s.has_header() && !begun) {
                timeline.begin_image(f.path(), p.header);
                if (!rates) rates.emplace(timeline.data().event_names(), o.rates, o.default_rates);
                view->rows({timeline, *rates, o}, {});
                view->status(fmt::format("following {}", f.path()));
                begun = true;
            }
            if (begun) timeline.update(p, s.take_changed(), now);
            const bool gone = !p.end.present && s.has_header() && now - grown_at >= kGoneAfterNs &&
                              program_gone(p.header);
            if ((p.end.present && !execs_into_new_file(p)) || gone) {
                timeline.end_image();
                if (auto rows = timeline.take_complete(now); !rows.empty()) view->rows({timeline, *rates, o}, rows);
                if (rates) view->summary({timeline, *rates, o}, timeline.whole_run());
                view->ended(fmt::format("{} (pid {}) ended: {}", p.header.program, p.header.pid, describe_end(p.end)));
                if (timeline.late_parts())
                    notes() << fmt::format("sprof: warning: {} parts of intervals came after their interval was "
                                             "shown (sprof --timeline {} has them)\n",
                                             timeline.late_parts(), f.path());
                return;
            }
            if (execs_into_new_file(p)) {
                if (auto next = chain.next(now)) {
                    view->status(fmt::format("{} exec'd: following {}", p.header.program, next->path()));
                    chain.advance(std::move(next));
                    begun = false;
                    bytes = 0;
                    continue;  // the next image's bytes at once
                }
            } else {
                chain.exec_failed();
            }
        }
        if (rates)
            if (auto rows = timeline.take_complete(now); !rows.empty()) view->rows({timeline, *rates, o}, rows);
        if (!view->wait(kPollMs)) return;
    }
}

}  // namespace sprof::analyze

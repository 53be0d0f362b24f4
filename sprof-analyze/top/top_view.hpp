// What `sprof top` shows, as one of two views of the live time line: a
// terminal screen (top_screen.cpp) or appended CSV lines (top_csv.cpp).
// report_top.cpp follows the profile and tells the view what is new.
#pragma once
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "live_timeline.hpp"
#include "options.hpp"
#include "rates.hpp"

namespace sprof::analyze {

struct TopContext {
    const LiveTimeline& timeline;
    const RateSet& rates;
    const Options& options;
};

class TopView {
public:
    virtual ~TopView() = default;
    // What the follower does now (waiting for the file, following it, an
    // exec), when that changes.
    virtual void status(const std::string& what) = 0;
    // Rows just completed, in time-line order: the last one is the current
    // interval. Once per histogram interval while the program runs, and with
    // none when an image's profile begins (its header read).
    virtual void rows(const TopContext& c, const std::vector<const LiveRow*>& rows) = 0;
    // Waits up to `ms` milliseconds for the next look at the file; false
    // when the user asked to quit.
    virtual bool wait(int ms) = 0;
    // The program ended: every interval as one row (LiveTimeline::whole_run),
    // shown as the run's summary. Just before ended().
    virtual void summary(const TopContext& c, const LiveRow& whole) = 0;
    // The program ended, `how` in words: the view's last words.
    virtual void ended(const std::string& how) = 0;
};

// Per function of a row, most time first (ties: by name), at most `top` (0:
// all): the rows both views show.
std::vector<FunctionCounts> top_functions(const TopContext& c, const LiveRow& row);

// The terminal screen (ncurses); throws std::runtime_error when the terminal
// cannot be used.
std::unique_ptr<TopView> make_screen_view(std::ostream& out);
// CSV: a header once, then a row per function and interval, flushed per
// interval; how the program ended on `err`, other notes on notes().
std::unique_ptr<TopView> make_csv_view(std::ostream& out, std::ostream& err);

}  // namespace sprof::analyze

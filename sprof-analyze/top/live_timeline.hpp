// The time line of a run while its profile is still being written (sprof
// top): the rows of --timeline (row k merges every thread's k-th interval),
// built as intervals and their parts are read, each row told once it is
// complete. The images a process execs into continue the time line after the
// rows of the image before.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dataset.hpp"

namespace sprof::analyze {

struct LiveRow {
    uint64_t number = 0;                // on the time line: the image's first row number + seq
    uint32_t seq = 0;                   // in its image's profile
    size_t image = 0;                   // 0: the first image, 1: the one it exec'd into …
    uint64_t start_ns = 0, end_ns = 0;  // the span of its intervals
    std::vector<uint32_t> intervals;    // indices into LiveTimeline::data().intervals
    std::vector<uint32_t> tids;         // the threads with an interval in it
    uint64_t last_part_ns = 0;          // when it last got a part (the caller's clock)
    bool taken = false;                 // told as complete
};

class LiveTimeline {
public:
    // A row waits for the threads still in it: it is complete once every
    // thread with an interval in it has begun a later one, or, when a later
    // row has begun, once no part came for this long. The collectors write
    // the open interval of a running thread every 100 ms; a thread that
    // stopped, sleeps or ended writes none.
    static constexpr uint64_t kQuietNs = 400'000'000;

    LiveTimeline();
    LiveTimeline(const LiveTimeline&) = delete;
    LiveTimeline& operator=(const LiveTimeline&) = delete;

    // An image's profile begins (its HEADER was read): its rows follow the
    // rows so far. The first image's events are the columns.
    void begin_image(const std::string& path, const ProfileHeader& h);
    // Intervals `changed` of the current image's profile `p` (indices into
    // p.intervals) were created or got a part, at `now_ns`. Throws
    // ProfileError for an interval that refers to a function p lacks.
    void update(const Profile& p, const std::vector<size_t>& changed, uint64_t now_ns);
    // The current image ended (END, or an exec): its rows are complete.
    void end_image();

    // The rows complete at `now_ns` and not taken before, in time-line order
    // (a row is taken only after every row before it).
    std::vector<const LiveRow*> take_complete(uint64_t now_ns);
    // Every interval read, as one row spanning the run: the summary shown
    // when the program ended.
    LiveRow whole_run() const;
    // The last `n` rows taken, oldest first.
    std::vector<const LiveRow*> last_taken(size_t n) const;

    const Dataset& data() const { return data_; }
    bool has_image() const { return !data_.sources.empty(); }
    // Parts that came after their row was taken (a thread descheduled past
    // kQuietNs): they are in the rows' sums from then on, not in what was
    // told before.
    uint64_t late_parts() const { return late_parts_; }

private:
    struct Image {
        size_t source = 0;                     // DatasetMerger's number of it
        uint64_t first_row = 0;                // its seq 0 on the time line
        std::vector<uint32_t> data_index;      // its profile's interval i → data_.intervals
        std::map<uint32_t, uint32_t> max_seq;  // per thread: its latest seq
        uint64_t last_row = 0;                 // its latest row number
        bool ended = false;
    };
    bool complete(const LiveRow& r, uint64_t now_ns) const;

    Dataset data_;
    DatasetMerger merger_{data_};
    std::vector<Image> images_;
    std::map<uint64_t, LiveRow> rows_;  // by number
    uint64_t next_take_ = 0;            // rows before this number are taken
    uint64_t late_parts_ = 0;
};

}  // namespace sprof::analyze

#include "live_timeline.hpp"

#include <algorithm>
#include <numeric>

namespace sprof::analyze {

LiveTimeline::LiveTimeline() = default;

void LiveTimeline::begin_image(const std::string& path, const ProfileHeader& h) {
    Image image;
    image.source = merger_.add_source(h);
    // After every row so far: an image's seq starts at 0 again.
    image.first_row = rows_.empty() ? next_take_ : rows_.rbegin()->first + 1;
    image.last_row = image.first_row;
    if (!images_.empty()) images_.back().ended = true;
    images_.push_back(std::move(image));
    Source s;
    s.path = path;
    s.profile.header = h;
    data_.sources.push_back(std::move(s));
}

void LiveTimeline::update(const Profile& p, const std::vector<size_t>& changed, uint64_t now_ns) {
    const size_t m = images_.size() - 1;
    Image& image = images_.back();
    for (size_t i : changed) {
        Interval iv = p.intervals[i];  // merged so far: it replaces the copy made of its earlier parts
        merger_.remap(image.source, p, iv, data_.sources[m].path);
        const bool fresh = i >= image.data_index.size() || image.data_index[i] == UINT32_MAX;
        if (fresh) {
            if (i >= image.data_index.size()) image.data_index.resize(i + 1, UINT32_MAX);
            image.data_index[i] = static_cast<uint32_t>(data_.intervals.size());
            data_.intervals.push_back(std::move(iv));
            data_.interval_source.push_back(static_cast<uint32_t>(m));
        } else {
            data_.intervals[image.data_index[i]] = std::move(iv);
        }
        const Interval& merged = data_.intervals[image.data_index[i]];
        const uint64_t number = image.first_row + merged.seq;
        auto [it, added] = rows_.try_emplace(number);
        LiveRow& row = it->second;
        if (added) {
            row.number = number;
            row.seq = merged.seq;
            row.image = m;
            row.start_ns = merged.start_ns;
            row.end_ns = merged.end_ns;
            // A row below those already told is told no more: its parts are late.
            row.taken = number < next_take_;
        }
        row.start_ns = std::min(row.start_ns, merged.start_ns);
        row.end_ns = std::max(row.end_ns, merged.end_ns);
        if (fresh) row.intervals.push_back(image.data_index[i]);
        if (std::find(row.tids.begin(), row.tids.end(), merged.tid) == row.tids.end()) row.tids.push_back(merged.tid);
        row.last_part_ns = now_ns;
        if (row.taken) ++late_parts_;
        auto [seq, first] = image.max_seq.try_emplace(merged.tid, merged.seq);
        if (!first) seq->second = std::max(seq->second, merged.seq);
        image.last_row = std::max(image.last_row, number);
    }
}

void LiveTimeline::end_image() {
    if (!images_.empty()) images_.back().ended = true;
}

bool LiveTimeline::complete(const LiveRow& r, uint64_t now_ns) const {
    const Image& image = images_[r.image];
    if (image.ended) return true;
    if (r.number >= image.last_row) return false;  // the newest row is open while the image runs
    const bool all_moved_on = std::all_of(r.tids.begin(), r.tids.end(), [&](uint32_t tid) {
        auto it = image.max_seq.find(tid);
        return it != image.max_seq.end() && it->second > r.seq;
    });
    return all_moved_on || now_ns - r.last_part_ns >= kQuietNs;
}

std::vector<const LiveRow*> LiveTimeline::take_complete(uint64_t now_ns) {
    std::vector<const LiveRow*> out;
    for (auto it = rows_.lower_bound(next_take_); it != rows_.end(); ++it) {
        LiveRow& r = it->second;
        if (!complete(r, now_ns)) break;
        r.taken = true;
        next_take_ = r.number + 1;
        out.push_back(&r);
    }
    return out;
}

LiveRow LiveTimeline::whole_run() const {
    LiveRow whole;
    whole.intervals.resize(data_.intervals.size());
    std::iota(whole.intervals.begin(), whole.intervals.end(), 0u);
    if (!rows_.empty()) whole.start_ns = rows_.begin()->second.start_ns;
    for (const auto& [number, r] : rows_) {
        whole.start_ns = std::min(whole.start_ns, r.start_ns);
        whole.end_ns = std::max(whole.end_ns, r.end_ns);
    }
    return whole;
}

std::vector<const LiveRow*> LiveTimeline::last_taken(size_t n) const {
    std::vector<const LiveRow*> out;
    for (auto it = rows_.lower_bound(next_take_); it != rows_.begin() && out.size() < n;) {
        --it;
        out.push_back(&it->second);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

}  // namespace sprof::analyze

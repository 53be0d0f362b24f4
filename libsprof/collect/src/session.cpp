#include "sprof/session.hpp"

#include "sprof/estimator.hpp"

namespace sprof {

ProfileSession::ProfileSession(const std::string& path, ProfileHeader header, pid_t pid, uint64_t t0_ns,
                               std::vector<ObjectSymbols> tables)
    : header_(std::move(header)), space_(pid), tables_(std::move(tables)), pid_(pid), t0_ns_(t0_ns) {
    writer_.open(path, header_);
    load_address_space();
}

void ProfileSession::load_address_space() {
    for (const ObjectSymbols& t : tables_) space_.preload(t);  // before refresh: no ELF read for these
    space_.refresh();
}

void ProfileSession::add_thread(uint32_t tid, const std::string& name) {
    // Once per thread, also when a collector announces it again (a thread
    // whose sampling was restarted after a failed exec).
    if (builders_.try_emplace(tid, tid, static_cast<unsigned>(header_.events.size()), lost_tick_ns(header_),
                              self_sampled_events(header_))
            .second)
        writer_.add_thread(ProfileThread{tid, name});
}

uint32_t ProfileSession::object_id(const ObjectSymbols& table) {
    // By file, not path: an exec'd image may bring another file of the same path.
    auto [it, fresh] = objects_.try_emplace({table.path(), table.build_id()}, static_cast<uint32_t>(objects_.size()));
    if (fresh) writer_.add_object(ProfileObject{it->second, table.path(), table.build_id()});
    return it->second;
}

uint32_t ProfileSession::function_id(const Resolved& r) {
    if (r.function) {
        auto it = by_range_.find(r.function);
        if (it != by_range_.end()) return it->second;
        uint32_t id = next_function_++;
        writer_.add_function(ProfileFunction{id, object_id(*r.table), r.function->start, r.function->end, r.function->name});
        by_range_.emplace(r.function, id);
        return id;
    }
    if (r.object) {  // in a mapping, but in no function the object's table knows
        auto it = unknown_in_object_.find(*r.object);
        if (it != unknown_in_object_.end()) return it->second;
        uint32_t id = next_function_++;
        writer_.add_function(ProfileFunction{id, object_id(*r.table), 0, 0, "[unknown]"});
        unknown_in_object_.emplace(*r.object, id);
        return id;
    }
    if (unknown_ == kNoObject) {
        unknown_ = next_function_++;
        writer_.add_function(ProfileFunction{unknown_, kNoObject, 0, 0, "[unknown]"});
    }
    return unknown_;
}

ProfileSession::Code ProfileSession::code_at(uint64_t pc) {
    if (code_generation_ != space_.generation()) {
        code_of_.clear();
        code_generation_ = space_.generation();
    }
    if (auto it = code_of_.find(pc); it != code_of_.end()) return it->second;
    const Resolved r = space_.resolve(pc);
    const CodeRef ref{function_id(r), r.function ? pc - r.bias : pc};
    const Code code{ref, locations_.locate(ref)};
    // A PC in no mapping may be resolved by a later refresh, which resolve() just made or skipped.
    if (code_generation_ == space_.generation()) code_of_.emplace(pc, code);
    return code;
}

CodeRef ProfileSession::code_ref(uint64_t pc) { return code_at(pc).ref; }

ProfileWriter& ProfileSession::writer() {
    locations_.write_new(writer_);
    return writer_;
}

void ProfileSession::write_names() {
    locations_.write_new(writer_);
    stacks_.write_new(writer_);
}

void ProfileSession::flush(IntervalBuilder& b, uint64_t end_ns) {
    if (b.empty()) return;
    write_names();
    writer_.add_interval(b.close(end_ns));
}

uint32_t ProfileSession::stack_of(const RawSample& s, const Code& leaf) {
    frames_.clear();
    frames_.push_back(leaf.ref);
    // chain[0] is the sampled pc itself; a return address names the
    // instruction after the call, which may lie past the caller's end (a
    // call to a function that does not return) or on the next line.
    for (uint32_t i = 1; i < s.depth; ++i) frames_.push_back(code_at(s.chain[i] - 1).ref);
    return stacks_.intern(frames_);
}

void ProfileSession::add_sample(uint32_t tid, const RawSample& raw) {
    RawSample s = raw;
    s.wall_ns = raw.wall_ns > t0_ns_ ? raw.wall_ns - t0_ns_ : 0;
    auto it = builders_.find(tid);
    if (it == builders_.end()) {
        add_thread(tid, "");
        it = builders_.find(tid);
    }
    IntervalBuilder& b = it->second;
    if (header_.hist_interval_ns) {
        // Fixed-length intervals: [k·T, (k+1)·T) of the run's wall time.
        uint64_t T = header_.hist_interval_ns;
        uint64_t& end = interval_end_[tid];
        if (end == 0) end = (s.wall_ns / T + 1) * T;
        if (s.wall_ns >= end) {
            flush(b, end);
            end = (s.wall_ns / T + 1) * T;
        }
    }
    if (s.pc == kTailPc) {
        b.add_tail(s);
        return;
    }
    const Code code = code_at(s.pc);
    b.add(code.ref.function, s, code.location, s.depth ? stack_of(s, code) : IntervalBuilder::kNoStack);
    if (!s.tick) return;  // an event's own record: no tick, nothing closes
    ++samples_;
    if (!header_.hist_interval_ns && b.ticks() >= header_.hist_samples) flush(b, s.wall_ns);
}

void ProfileSession::end_thread(uint32_t tid, uint64_t wall_ns) {
    auto it = builders_.find(tid);
    if (it == builders_.end()) return;
    flush(it->second, wall_ns > t0_ns_ ? wall_ns - t0_ns_ : 0);
}

void ProfileSession::flush_parts() {
    write_names();
    for (auto& [tid, b] : builders_)
        if (b.has_new_part()) writer_.add_interval(b.take_part());
}

void ProfileSession::exec_switch() {
    // Function ids already written stay valid; the new image's functions get new ones.
    by_range_.clear();
    unknown_in_object_.clear();
    code_of_.clear();
    space_ = AddressSpace(pid_);
    load_address_space();
}

ProfileEnd ProfileSession::make_end(EndHow how, int value, uint64_t lost_samples) const {
    ProfileEnd end;
    end.present = true;
    end.how = how;
    if (how == EndHow::signal) {
        end.signal = value;
        end.exit_status = 128 + value;  // as a shell reports it
    } else if (how != EndHow::exec) {
        end.exit_status = value & 0xff;  // what the parent's waitpid sees
    }
    end.samples = samples_;
    end.lost_samples = lost_samples;
    return end;
}

void ProfileSession::finish(EndHow how, int value, uint64_t lost_samples) {
    if (!writer_.is_open()) return;
    locations_.write_new(writer_);
    writer_.finish(make_end(how, value, lost_samples));
}

void ProfileSession::end_for_exec(uint64_t lost_samples) {
    if (!writer_.is_open()) return;
    locations_.write_new(writer_);
    writer_.write_end(make_end(EndHow::exec, 0, lost_samples));
}

void ProfileSession::resume() {
    if (writer_.is_open()) writer_.retract_end();
}

}  // namespace sprof

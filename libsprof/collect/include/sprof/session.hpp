// One process's profile being recorded: raw samples in, profile records out.
// Resolves PCs to functions (the one symbol resolver), names each address
// (CodeLocations; the analyzer finds its source line), builds histogram
// intervals (the one interval builder) per thread and appends them to the
// file as they close. Used by the in-process runtime (from its writer
// thread) and by the ptrace monitor; never from a signal handler.
#pragma once
#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <tsl/robin_map.h>

#include "sprof/call_stacks.hpp"
#include "sprof/code_locations.hpp"
#include "sprof/interval_builder.hpp"
#include "sprof/profile_io.hpp"
#include "sprof/symbols.hpp"

namespace sprof {

class ProfileSession {
public:
    // `t0_ns` is CLOCK_MONOTONIC at the start of the run: interval times are relative to it.
    // `tables` (from a control file) are used instead of reading those objects' ELF files,
    // also after an exec.
    ProfileSession(const std::string& path, ProfileHeader header, pid_t pid, uint64_t t0_ns,
                   std::vector<ObjectSymbols> tables = {});

    void add_thread(uint32_t tid, const std::string& name);
    void add_sample(uint32_t tid, const RawSample& s);
    // Flushes the thread's partial interval (thread exit, process end).
    void end_thread(uint32_t tid, uint64_t wall_ns);
    // Writes the new part of every thread's open interval (INTERVAL records
    // with the interval's tid and seq: a reader adds the parts up). Called
    // every drain period, so a program killed at any moment loses at most
    // the samples since the last call.
    void flush_parts();
    // The process exec'd: forget the old image's mappings.
    void exec_switch();
    // Writes the END record and closes the file: how the program ended;
    // `value` is the exit code for exit/exit_now, the signal number for signal.
    void finish(EndHow how, int value, uint64_t lost_samples);
    // Before an exec of this process: flushes every thread and writes an END
    // (how = exec) but keeps the file open; if the exec fails, resume() takes
    // the END back and recording goes on in the same file.
    void end_for_exec(uint64_t lost_samples);
    void resume();

    // For locality records: an instruction as the profile names it (its
    // function, written as a FUNCTION record on first use, and its link-time
    // address), with its address row (CODE_LOCATIONS), and the
    // writer the records go to. writer() first writes the location rows not
    // yet written, so they precede every record that names their code.
    CodeRef code_ref(uint64_t pc);
    // An object as the profile names it: a file by path and build-id (its
    // OBJECT record written on first use).
    uint32_t object_id(const ObjectSymbols& table);
    ProfileWriter& writer();

    AddressSpace& address_space() { return space_; }
    const std::string& path() const { return writer_.path(); }
    uint64_t samples() const { return samples_; }

private:
    struct Code {
        CodeRef ref;
        uint32_t location;  // CodeLocation id
    };
    // Function, address and source location of a PC (resolved, and their
    // records made, on first sight).
    Code code_at(uint64_t pc);
    // The stack of a sample with a call chain: its code, then each caller
    // at its call (the return address less one).
    uint32_t stack_of(const RawSample& s, const Code& leaf);
    // Locations, then stacks: what the next interval may name.
    void write_names();
    uint32_t function_id(const Resolved& r);
    void flush(IntervalBuilder& b, uint64_t end_ns);
    ProfileEnd make_end(EndHow how, int value, uint64_t lost_samples) const;
    void load_address_space();

    ProfileWriter writer_;
    ProfileHeader header_;
    AddressSpace space_;
    CodeLocations locations_;
    CallStacks stacks_;
    std::vector<CodeRef> frames_;  // stack_of's scratch
    std::vector<ObjectSymbols> tables_;
    pid_t pid_;
    uint64_t t0_ns_;
    uint64_t samples_ = 0;
    uint32_t next_function_ = 0;
    std::unordered_map<const FunctionRange*, uint32_t> by_range_;
    // Each PC as code_at found it, while the mappings stay those it was
    // found in (a locality run names the same instructions again and again).
    tsl::robin_map<uint64_t, Code> code_of_;
    uint64_t code_generation_ = 0;
    std::map<std::string, uint32_t> unknown_in_object_;
    std::map<std::pair<std::string, std::string>, uint32_t> objects_;  // (path, build-id) → id
    uint32_t unknown_ = kNoObject;  // id of the [unknown] bucket once used
    std::map<uint32_t, IntervalBuilder> builders_;
    std::map<uint32_t, uint64_t> interval_end_;  // time-based intervals: end of the open one per thread
};

}  // namespace sprof
